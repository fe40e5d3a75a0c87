import type { PageData, PageNote } from '../server/page-data.js';
import { parentLink } from './agent-links.js';
import { h, setText } from './dom.js';
import { type Entry, text } from './entries.js';
import { clip } from './format.js';
import type { Connection } from './live-client.js';

/** How the run stands: ended with a status, still going, or cut off. */
interface RunStatus {
  ended: string | null;
  live: boolean;
  connection: Connection | null;
  /** Following a trace file rather than a run in this process. */
  following?: boolean;
  /** Why following stopped before an end line came (the run's process is gone). */
  followEnded?: string | null;
  /** Scrubbed back to a moment before the newest event: the state the run was in then (the badge shows it, not how the run ended). */
  scrubbed?: { state: string | null; index: number } | null;
}

/**
 * The top bar: the task, the model, where the data comes from, and a status
 * pill (done, stalled, running live, disconnected, no end line); notes about
 * the data (a cut line, rules that did not parse) sit under it.
 *
 * @example const header = new RunHeader(data); header.update(startEntry, { ended: 'done', live: false, connection: null });
 */
export class RunHeader {
  readonly element: HTMLElement;
  private readonly task = h('span', { class: 'task' });
  private readonly model = h('span', { class: 'chip-info' });
  private readonly pill = h('span', { class: 'pill' });
  private readonly notes: HTMLElement;
  private readonly source: HTMLElement;
  private readonly liveRun: boolean;
  private readonly agentPages: boolean;
  private readonly parent = h('a', { class: 'chip-info parent-link', hidden: '' });

  constructor(data: PageData) {
    this.liveRun = data.mode === 'live';
    this.agentPages = data.agentPages === true;
    const source = h(
      'span',
      { class: 'chip-info source', title: data.source },
      this.liveRun ? 'live run' : clip(data.source.split(/[\\/]/).slice(-2).join('/'), 48),
    );
    this.source = source;
    this.element = h(
      'header',
      { class: 'top' },
      h('div', { class: 'brand' }, h('span', { class: 'mark', 'aria-hidden': 'true' }), 'rein'),
      h('div', { class: 'run' }, this.task, h('div', { class: 'sub' }, this.model, source, this.parent)),
      this.pill,
    );
    this.notes = h('div', { class: 'notes', role: 'status' });
    this.showNotes(data.notes);
    this.task.textContent =
      data.mode === 'live' ? 'Waiting for the run to start…' : data.mode === 'follow' ? 'No start line in this trace yet' : 'No start line in this trace';
  }

  get banner(): HTMLElement {
    return this.notes;
  }

  update(start: Entry | null, status: RunStatus): void {
    if (start) {
      const task = text(start.data, 'task');
      setText(this.task, clip(task, 180) || '(no task)');
      this.task.title = task;
      const parent = this.agentPages ? parentLink(start) : null;
      if (parent) {
        this.parent.hidden = false;
        this.parent.setAttribute('href', parent.href);
        setText(this.parent, parent.text);
      }
      setText(this.model, [text(start.data, 'model'), text(start.data, 'testCmd') ? `tests: ${text(start.data, 'testCmd')}` : ''].filter(Boolean).join(' · '));
    }
    // The page of a run served live says so only while the run goes on.
    if (this.liveRun) setText(this.source, status.ended ? 'ended run (served live)' : 'live run');
    const [label, tone] = pillFor(status);
    setText(this.pill, label);
    this.pill.dataset.tone = tone;
    this.pill.title = status.scrubbed
      ? `The state at event ${status.scrubbed.index + 1}, where the scrubber is${status.ended ? `; the run ended ${status.ended}` : ''} (Latest shows the newest event)`
      : status.ended
        ? 'How the run ended (the end line of the trace)'
        : status.followEnded
          ? status.followEnded
          : status.following
            ? "New lines of the trace appear as the run writes them; rein viz says when the run's process is gone"
            : status.live
              ? 'The live connection to the run'
              : 'The trace has no end line: the run was killed, or is still going';
  }

  /** A note that arrives later (following stopped). */
  addNote(note: PageNote): void {
    this.notes.hidden = false;
    const list = this.notes.querySelector('ul');
    if (list) list.append(h('li', { class: `note-${note.level}` }, note.text));
    else this.showNotes([note]);
  }

  private showNotes(notes: PageNote[]): void {
    if (notes.length === 0) {
      this.notes.hidden = true;
      return;
    }
    const close = h('button', { class: 'tool close', title: 'Hide these notes', 'aria-label': 'Hide notes' }, '×');
    close.addEventListener('click', () => {
      this.notes.hidden = true;
    });
    this.notes.replaceChildren(h('ul', {}, ...notes.map((note) => h('li', { class: `note-${note.level}` }, note.text))), close);
  }
}

function pillFor(status: RunStatus): [string, string] {
  if (status.scrubbed) return [status.scrubbed.state ? `at ${status.scrubbed.state}` : 'before the first state', 'moment'];
  if (status.ended) return [status.ended, status.ended === 'done' ? 'done' : 'failed'];
  if (status.followEnded) return ['run gone: no end line', 'warn'];
  if (!status.live) return ['no end line', 'warn'];
  switch (status.connection) {
    case 'open':
      return status.following ? ['● following the trace', 'live'] : ['● running', 'live'];
    case 'reconnecting':
      return ['reconnecting…', 'warn'];
    case 'closed':
      return ['disconnected', 'warn'];
    default:
      return ['connecting…', 'warn'];
  }
}
