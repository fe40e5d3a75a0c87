import type { PageData } from '../server/page-data.js';
import { childSummaries } from './agent-links.js';
import { ApprovalPanel } from './approval-panel.js';
import { ChartIndex } from './chart-index.js';
import { phasesOf } from './chart-level.js';
import { scopeOfPick } from './chart-scope.js';
import { DetailView } from './detail-view.js';
import { h } from './dom.js';
import { EventList } from './event-list.js';
import { clockPair } from './format.js';
import { Gauges } from './gauges.js';
import { bindKeys } from './keys.js';
import { type Connection, connectLive } from './live-client.js';
import { LiveState } from './live-state.js';
import { RunHeader } from './run-header.js';
import { Scrubber } from './scrubber.js';
import { type ChartPick, type PhaseStats, StatechartView } from './statechart-view.js';
import { Timeline } from './timeline.js';
import { WhyCard } from './why-card.js';
import { WorkspacePanel } from './workspace-panel.js';

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
  private readonly approval: ApprovalPanel | null;
  private readonly detail: DetailView;
  private readonly workspace: WorkspacePanel | null;
  private readonly view: StatechartView;
  private readonly list: EventList;
  private readonly scrubber: Scrubber;
  private index: number;
  private following = true;
  private playing = false;
  private picked: ChartPick = null;
  private connection: Connection | null = null;
  private followEnded: string | null = null;
  private frame = 0;
  private player = 0;

  constructor(
    private readonly root: HTMLElement,
    private readonly data: PageData,
  ) {
    this.chart = new ChartIndex(data.graph);
    this.timeline = new Timeline(this.chart);
    data.lines.forEach((line) => {
      this.timeline.append(line);
    });
    this.index = data.startStep === undefined ? this.timeline.length - 1 : this.endOfStep(data.startStep);
    this.live = data.eventsUrl ? new LiveState() : null;
    this.approval = data.approval ? new ApprovalPanel(data.approval.url) : null;
    this.header = new RunHeader(data);
    this.gauges = new Gauges(data.limits);
    this.detail = new DetailView(this.chart, data.agentPages ? (callId) => childSummaries(this.timeline.entries, callId) : null);
    this.workspace = data.workspace || data.workspaceUrl ? new WorkspacePanel(data.workspace ?? null, data.workspaceUrl ?? null) : null;
    this.view = new StatechartView(
      this.chart,
      this.why.element,
      (pick) => this.pick(pick),
      () => this.schedule(),
    );
    this.list = new EventList(
      this.timeline,
      (index) => this.moveTo(index),
      () => this.pick(null),
    );
    this.scrubber = new Scrubber(this.timeline, phasePalette(phasesOf(data.graph)), {
      move: (index) => this.moveTo(index),
      step: (delta) => this.moveTo(this.index + delta),
      togglePlay: () => this.setPlaying(!this.playing),
      toLatest: () => this.moveTo(this.timeline.length - 1, true),
    });
  }

  /** The last event of `step` (a link to a fork's origin opens the page there). */
  private endOfStep(step: number): number {
    let index = 0;
    while (index + 1 < this.timeline.length && this.timeline.moment(index + 1).step <= step) index++;
    return index;
  }

  start(): void {
    this.root.replaceChildren(
      this.header.element,
      // The waiting call sits with the notes, in the grid's notes row.
      this.approval ? h('div', { class: 'notes-area' }, this.header.banner, this.approval.element) : this.header.banner,
      this.gauges.element,
      h('main', { class: 'main' }, this.view.element, h('aside', { class: 'side' }, this.list.element, this.detail.element, this.workspace?.element)),
      this.scrubber.element,
    );
    this.root.classList.add('ready');
    this.list.appended(0);
    this.list.setCurrent(this.index, true);
    if (this.data.eventsUrl) this.connect(this.data.eventsUrl);
    bindKeys(this.timeline, {
      index: () => this.index,
      moveTo: (index, latest) => this.moveTo(index, latest),
      togglePlay: () => this.setPlaying(!this.playing),
      back: () => (this.view.levelKey.startsWith('phases:') ? this.view.setLevel('phases', true) : this.pick(null)),
    });
    new ResizeObserver(() => this.view.resize()).observe(this.view.element);
    this.schedule();
  }

  private moveTo(index: number, latest = false): void {
    this.index = Math.max(0, Math.min(this.timeline.length - 1, index));
    this.following = latest || (this.live !== null && this.index === this.timeline.length - 1);
    this.list.setCurrent(this.index, true);
    this.schedule();
  }

  /** A state or arrow clicked on the chart: the list shows the times it was entered or taken, the details say what it is. */
  private pick(pick: ChartPick): void {
    this.picked = pick;
    this.view.pick(pick);
    this.list.setScope(scopeOfPick(pick, this.chart, this.timeline));
    this.schedule();
  }

  private setPlaying(on: boolean): void {
    this.playing = on;
    clearInterval(this.player);
    if (on) {
      if (this.index >= this.timeline.length - 1) this.moveTo(0);
      this.player = window.setInterval(
        () => (this.index >= this.timeline.length - 1 ? this.setPlaying(false) : this.moveTo(this.index + 1)),
        1000 / PLAY_EVENTS_PER_SECOND,
      );
    }
    this.schedule();
  }

  /** Renders at most once a frame, however many lines or moves came in. */
  private schedule(): void {
    if (!this.frame)
      this.frame = requestAnimationFrame(() => {
        this.frame = 0;
        this.render();
      });
  }

  private render(): void {
    const { timeline, live } = this;
    const moment = timeline.moment(this.index);
    const connected = this.connection === 'open';
    // Following a live run, XState's own snapshot is the freshest word on the state.
    const ahead = live !== null && connected && this.following && live.state !== null && live.state !== moment.state;
    const shown = ahead ? live.state : moment.state;
    const now = Date.now() / 1000;
    const visits = timeline.visits(this.index);
    this.view.update({
      state: shown,
      match: ahead ? null : moment.match,
      visits,
      phases: phaseStats(visits),
      inFlight: live && this.following && connected ? live.inFlight() : new Set(),
    });
    this.why.update({
      state: shown,
      transition: moment.transition,
      match: moment.match,
      entry: moment.entry,
      ahead,
      live: this.following && connected ? live : null,
      now,
    });
    // A followed trace file may belong to a killed run, so its clock only moves with its lines.
    const running = this.data.mode === 'live' && live !== null && this.following && !moment.status && timeline.startT !== null && connected;
    this.gauges.update(moment, running ? now - timeline.startT! : moment.elapsed);
    this.showDetail(moment, visits.states);
    const ended = timeline.moment(timeline.length - 1).status ?? (live?.status === 'done' ? 'ended' : null);
    // Before the run's end (or its newest event), the badge says where the run was at the scrubbed moment.
    const scrubbed = !moment.status && moment.index < timeline.length - 1 && !ahead ? { state: shown, index: moment.index } : null;
    this.header.update(timeline.entries.find((entry) => entry.kind === 'start') ?? null, {
      ended,
      scrubbed,
      live: live !== null,
      connection: this.connection,
      following: this.data.mode === 'follow',
      followEnded: this.followEnded,
    });
    this.workspace?.show(moment.step);
    this.scrubber.update(this.index, positionLabel(moment.index, timeline.length, moment.step, moment.elapsed, this.data.limits.maxSeconds), {
      following: this.following,
      playing: this.playing,
      // A run that has ended is not live, though the server serves its page on (and a reload opens it at its end).
      live: live !== null && connected && !this.followEnded && ended === null,
    });
    Object.assign(
      this.root.dataset,
      { index: String(moment.index), state: shown ?? '', status: moment.status ?? '', level: this.view.levelKey },
      live ? { inspected: String(live.received) } : {},
    );
    document.title = `${shown ?? 'rein'} · rein`;
  }

  private showDetail(moment: ReturnType<Timeline['moment']>, entered: Map<string, number>): void {
    const picked = this.picked;
    const node = picked?.kind === 'state' ? this.chart.nodes.get(picked.id) : undefined;
    const edge = picked?.kind === 'edge' ? this.chart.graph.edges.find((candidate) => candidate.id === picked.id) : undefined;
    if (node) this.detail.showNode(node, entered.get(node.id) ?? 0);
    else if (edge) this.detail.showEdge(edge);
    else this.detail.showEntry(moment.entry, moment.entry?.kind === 'transition' ? moment.match : null);
  }

  private connect(url: string): void {
    connectLive(url, {
      trace: (line) => {
        if (line.kind === 'approval_ask') this.approval?.asked(line);
        if (line.kind === 'approval_decision') this.approval?.decided(line);
        const current = this.timeline.entries[this.index];
        const from = this.timeline.append(line);
        if (from < this.timeline.length - 1) this.list.changedFrom(from);
        else this.list.appended(from);
        this.scrubber.redraw();
        // Following: the newest line. Scrubbed back: the same line as before, wherever the move put it.
        this.index = this.following || !current ? this.timeline.length - 1 : current.index;
        this.list.setCurrent(this.index, this.following);
      },
      inspect: (message) => this.live?.apply(message),
      flush: () => this.schedule(),
      connection: (connection) => {
        this.connection = connection;
        this.schedule();
      },
      followEnd: (text) => {
        this.followEnded = text;
        this.header.addNote({ level: 'warn', text });
        this.schedule();
      },
    });
    // The clock and the "waiting on model" timer move between messages.
    window.setInterval(() => {
      if (this.following && this.connection === 'open') this.schedule();
    }, 500);
  }
}

/** Per phase: how often it was entered and how many model calls it made, so far. */
function phaseStats(visits: ReturnType<Timeline['visits']>): Map<string, PhaseStats> {
  const stats = new Map<string, PhaseStats>();
  for (const [id, count] of visits.states) stats.set(id, { visits: count, steps: visits.steps.get(id) ?? 0 });
  return stats;
}

/** Where the scrubber is; the time in the TIME gauge's format. */
function positionLabel(index: number, length: number, step: number, elapsed: number | null, maxSeconds: number): string {
  if (length === 0) return 'no events';
  return `event ${index + 1} / ${length.toLocaleString('en-US')} · step ${step}${elapsed !== null ? ` · ${clockPair(elapsed, maxSeconds)[0]}` : ''}`;
}

/** A colour per phase, in chart order, from the stylesheet's phase palette. */
function phasePalette(phases: string[]): (phase: string) => string {
  const styles = getComputedStyle(document.documentElement);
  return (phase) => {
    const index = phases.indexOf(phase);
    return styles.getPropertyValue(index >= 0 ? `--phase-${index % 6}` : '--c-final').trim() || '#999';
  };
}
