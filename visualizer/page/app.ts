import type { PageData } from '../server/page-data.js';
import { ChartIndex } from './chart-index.js';
import { DetailView } from './detail-view.js';
import { h } from './dom.js';
import { EventList } from './event-list.js';
import { duration } from './format.js';
import { Gauges } from './gauges.js';
import { connectLive, type Connection } from './live-client.js';
import { LiveState } from './live-state.js';
import { RunHeader } from './run-header.js';
import { Scrubber } from './scrubber.js';
import { StatechartView } from './statechart-view.js';
import { Timeline } from './timeline.js';
import { WhyCard } from './why-card.js';

const PLAY_EVENTS_PER_SECOND = 10;

/**
 * Mounts the page: chart, event list, details, gauges and scrubber over one
 * timeline. A replay opens at the last event; a live page follows the newest
 * one until the person scrubs back ("Go live" returns).
 *
 * @example mountApp(document.getElementById('app')!, data);
 */
export function mountApp(root: HTMLElement, data: PageData): void {
  new App(root, data).start();
}

class App {
  private readonly chart: ChartIndex;
  private readonly timeline: Timeline;
  private readonly live: LiveState | null;
  private readonly header: RunHeader;
  private readonly gauges: Gauges;
  private readonly why = new WhyCard();
  private readonly detail: DetailView;
  private readonly view: StatechartView;
  private readonly list: EventList;
  private readonly scrubber: Scrubber;
  private index: number;
  private following = true;
  private playing = false;
  private selected: string | null = null;
  private connection: Connection | null = null;
  private frame = 0;
  private player = 0;

  constructor(private readonly root: HTMLElement, private readonly data: PageData) {
    this.chart = new ChartIndex(data.graph);
    this.timeline = new Timeline(this.chart);
    data.lines.forEach((line) => this.timeline.append(line));
    this.index = this.timeline.length - 1;
    this.live = data.eventsUrl ? new LiveState() : null;
    this.header = new RunHeader(data);
    this.gauges = new Gauges(data.limits);
    this.detail = new DetailView(this.chart);
    this.view = new StatechartView(this.chart, (id) => { this.selected = id; this.schedule(); });
    this.list = new EventList(this.timeline, (index) => this.moveTo(index));
    const phases = data.graph.nodes.filter((node) => node.kind === 'compound' && node.parent === data.graph.machineId).map((node) => node.id);
    this.scrubber = new Scrubber(this.timeline, phasePalette(phases), {
      move: (index) => this.moveTo(index),
      step: (delta) => this.moveTo(this.index + delta),
      togglePlay: () => this.setPlaying(!this.playing),
      toLatest: () => this.moveTo(this.timeline.length - 1, true),
    });
  }

  start(): void {
    this.view.element.append(this.why.element);
    this.root.replaceChildren(this.header.element, this.header.banner, this.gauges.element,
      h('main', { class: 'main' }, this.view.element, h('aside', { class: 'side' }, this.list.element, this.detail.element)),
      this.scrubber.element);
    this.root.classList.add('ready');
    this.list.appended(0);
    this.list.setCurrent(this.index, true);
    if (this.data.eventsUrl) this.connect(this.data.eventsUrl);
    bindKeys(this.timeline, () => this.index, (index, latest) => this.moveTo(index, latest), () => this.setPlaying(!this.playing));
    new ResizeObserver(() => this.view.resize()).observe(this.view.element);
    this.schedule();
  }

  private moveTo(index: number, latest = false): void {
    this.index = Math.max(0, Math.min(this.timeline.length - 1, index));
    this.following = latest || (this.live !== null && this.index === this.timeline.length - 1);
    this.selected = null;
    this.list.setCurrent(this.index, true);
    this.schedule();
  }

  private setPlaying(on: boolean): void {
    this.playing = on;
    clearInterval(this.player);
    if (on) {
      if (this.index >= this.timeline.length - 1) this.moveTo(0);
      this.player = window.setInterval(() => (this.index >= this.timeline.length - 1 ? this.setPlaying(false) : this.moveTo(this.index + 1)), 1000 / PLAY_EVENTS_PER_SECOND);
    }
    this.schedule();
  }

  /** Renders at most once a frame, however many lines or moves came in. */
  private schedule(): void {
    if (!this.frame) this.frame = requestAnimationFrame(() => { this.frame = 0; this.render(); });
  }

  private render(): void {
    const { timeline, live } = this;
    const moment = timeline.moment(this.index);
    // Following a live run, XState's own snapshot is the freshest word on the state.
    const ahead = live !== null && this.following && live.state !== null && live.state !== moment.state;
    const shown = ahead ? live.state : moment.state;
    const now = Date.now() / 1000;
    const visits = timeline.visits(this.index);
    this.view.update({ state: shown, match: ahead ? null : moment.match, visits, inFlight: live && this.following ? live.inFlight() : new Set() });
    this.view.select(this.selected);
    this.why.update({ state: shown, transition: moment.transition, match: moment.match, ahead, live: this.following ? live : null, now });
    // A followed trace file may belong to a killed run, so its clock only moves with its lines.
    const running = this.data.mode === 'live' && live !== null && this.following && !moment.status && timeline.startT !== null && this.connection === 'open';
    this.gauges.update(moment, running ? now - timeline.startT! : moment.elapsed);
    const node = this.selected ? this.chart.nodes.get(this.selected) : undefined;
    if (node) this.detail.showNode(node, visits.states.get(node.id) ?? 0);
    else this.detail.showEntry(moment.entry, moment.entry?.kind === 'transition' ? moment.match : null);
    const ended = timeline.moment(timeline.length - 1).status ?? (live?.status === 'done' ? 'ended' : null);
    this.header.update(timeline.entries.find((entry) => entry.kind === 'start') ?? null, { ended, live: live !== null, connection: this.connection, following: this.data.mode === 'follow' });
    this.scrubber.update(this.index, positionLabel(moment.index, timeline.length, moment.step, moment.elapsed), { following: this.following, playing: this.playing, live: live !== null });
    Object.assign(this.root.dataset, { index: String(moment.index), state: shown ?? '', status: moment.status ?? '' }, live ? { inspected: String(live.received) } : {});
    document.title = `${shown ?? 'rein'} · rein`;
  }

  private connect(url: string): void {
    connectLive(url, {
      trace: (line) => {
        const from = this.timeline.length;
        this.timeline.append(line);
        this.list.appended(from);
        this.scrubber.redraw();
        if (this.following) { this.index = this.timeline.length - 1; this.list.setCurrent(this.index, true); }
      },
      inspect: (message) => this.live?.apply(message),
      flush: () => this.schedule(),
      connection: (connection) => { this.connection = connection; this.schedule(); },
    });
    // The clock and the "waiting on model" timer move between messages.
    window.setInterval(() => { if (this.following && this.connection === 'open') this.schedule(); }, 500);
  }
}

function positionLabel(index: number, length: number, step: number, elapsed: number | null): string {
  if (length === 0) return 'no events';
  return `event ${index + 1} / ${length.toLocaleString('en-US')} · step ${step}${elapsed !== null ? ` · ${duration(elapsed)}` : ''}`;
}

/** A colour per phase, in chart order, from the stylesheet's phase palette. */
function phasePalette(phases: string[]): (phase: string) => string {
  const styles = getComputedStyle(document.documentElement);
  return (phase) => {
    const index = phases.indexOf(phase);
    return styles.getPropertyValue(index >= 0 ? `--phase-${index % 6}` : '--c-final').trim() || '#999';
  };
}

/** ←/→ one event (with Shift: one model call), Home/End, Space to play; not while typing in the filter. */
function bindKeys(timeline: Timeline, index: () => number, moveTo: (index: number, latest?: boolean) => void, togglePlay: () => void): void {
  const nextModel = (from: number, direction: 1 | -1) => {
    for (let at = from + direction; at >= 0 && at < timeline.length; at += direction) if (timeline.entries[at]!.kind === 'model') return at;
    return direction > 0 ? timeline.length - 1 : 0;
  };
  const keys: Record<string, (shift: boolean) => void> = {
    ArrowLeft: (shift) => moveTo(shift ? nextModel(index(), -1) : index() - 1),
    ArrowRight: (shift) => moveTo(shift ? nextModel(index(), 1) : index() + 1),
    Home: () => moveTo(0),
    End: () => moveTo(timeline.length - 1, true),
    ' ': () => togglePlay(),
  };
  document.addEventListener('keydown', (event) => {
    const action = keys[event.key];
    const target = event.target as HTMLElement;
    // Inputs keep their keys (the range moves itself); a focused button keeps Space.
    if (!action || target.closest('input, textarea, select') || (event.key === ' ' && target.closest('button')) || event.metaKey || event.ctrlKey || event.altKey) return;
    event.preventDefault();
    action(event.shiftKey);
  });
}
