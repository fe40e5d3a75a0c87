import type { RunRecord } from './run-record.js';

export interface ProgressStream {
  write(text: string): boolean;
  isTTY?: boolean;
  columns?: number;
}

interface Progress {
  finished(record: RunRecord): void;
  /** A line of its own (a worker joined, Redis went away) that does not break the redrawn bar. */
  note(text: string): void;
  close(): void;
}

interface Tally {
  done: number;
  resolved: number;
}

/**
 * Progress of an eval on stderr: on a terminal one redrawn line (a bar,
 * done/total, resolved so far per configuration, ETA); otherwise one plain
 * line per finished run, for logs and CI.
 *
 * @example const progress = createProgress(process.stderr, { total: 24, configs: ['default', 'no-plan'], previous: [] });
 */
export function createProgress(
  stream: ProgressStream,
  options: { total: number; configs: readonly string[]; previous: readonly RunRecord[]; status?: () => string },
): Progress {
  const tallies = new Map<string, Tally>(options.configs.map((config) => [config, { done: 0, resolved: 0 }]));
  const count = (record: RunRecord) => {
    const tally = tallies.get(record.config);
    if (!tally) return;
    tally.done++;
    if (record.resolved) tally.resolved++;
  };
  options.previous.forEach(count);
  const startedAt = Date.now();
  let doneNow = 0;
  const done = () => options.previous.length + doneNow;
  const status = () => (options.status ? options.status() : '');
  const line = () =>
    progressLine({
      done: done(),
      total: options.total,
      tallies,
      etaSeconds: eta(startedAt, doneNow, options.total - done()),
      width: stream.columns ?? 100,
      status: status(),
    });
  if (!stream.isTTY) {
    return {
      finished(record) {
        count(record);
        doneNow++;
        stream.write(`rein eval: [${done()}/${options.total}${status() ? `, ${status()}` : ''}] ${describeRun(record)}\n`);
      },
      note(text) {
        stream.write(`rein eval: ${text}\n`);
      },
      close() {
        /* plain lines need no cleanup */
      },
    };
  }
  const draw = () => stream.write(`\r\x1b[2K${line()}`);
  const timer = setInterval(draw, 1000);
  timer.unref();
  draw();
  return {
    finished(record) {
      count(record);
      doneNow++;
      draw();
    },
    note(text) {
      stream.write(`\r\x1b[2Krein eval: ${text}\n`);
      draw();
    },
    close() {
      clearInterval(timer);
      draw();
      stream.write('\n');
    },
  };
}

/** One finished run in a few words: `py-stats × default #0: resolved (done, 9 steps, 2.1 s)`. */
export function describeRun(record: RunRecord): string {
  const verdict = record.resolved ? 'resolved' : 'unresolved';
  const detail = ['crash', 'setup_failed'].includes(record.status) || record.reason.startsWith('killed') ? `: ${record.reason}` : '';
  return `${record.task} × ${record.config} #${record.repeat}: ${verdict} (${record.status}, ${record.steps} steps, ${record.wallSeconds.toFixed(1)} s)${detail}`;
}

function progressLine(state: { done: number; total: number; tallies: Map<string, Tally>; etaSeconds: number | null; width: number; status: string }): string {
  const share = state.total === 0 ? 1 : state.done / state.total;
  const bar = `[${'#'.repeat(Math.round(share * 16)).padEnd(16, '-')}]`;
  const configs = [...state.tallies].map(([config, tally]) => `${config} ${tally.resolved}/${tally.done}`).join(', ');
  const eta = state.etaSeconds === null ? '' : ` ETA ${clock(state.etaSeconds)}`;
  // The ETA goes before the per-configuration tallies, so a narrow terminal cuts the tallies, not the ETA.
  const text = `rein eval ${bar} ${state.done}/${state.total}${eta}${state.status ? ` | ${state.status}` : ''} | resolved: ${configs}`;
  return text.length > state.width - 1 ? text.slice(0, state.width - 2) + '…' : text;
}

function eta(startedAt: number, finished: number, remaining: number): number | null {
  if (finished === 0) return null;
  return ((Date.now() - startedAt) / 1000 / finished) * remaining;
}

function clock(seconds: number): string {
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}
