import { type CommandCost, measureCommandOverhead, measureJobs } from '../sandbox-overhead.js';
import type { BenchSection } from '../section.js';

/** The warm sandbox's target: its overhead over a bare `sh -c` of the same command, at most. */
const TARGET_MS = 5;

/** Rounds of each command on each path; medians are reported. */
const ROUNDS = 15;

/**
 * What one command costs on each path (bare `sh -c`, a new sandbox per command
 * as before, the run's warm sandbox), measured in turns in one run, and what
 * background jobs cost.
 */
export const sandboxOverheadSection: BenchSection = {
  id: 'sandbox',
  title: `Command overhead: bare sh -c vs a sandbox per command (before) vs the run's warm sandbox (median of ${ROUNDS} turns each, taken in rotation)`,
  async run() {
    const { rows, startMs } = await measureCommandOverhead(ROUNDS);
    const jobs = await measureJobs();
    return {
      tables: [
        {
          headers: ['command', 'path', 'median ms', 'p90 ms', 'over bare sh -c, ms', 'over bare bash -c, ms'],
          rows: rows.map((row) => [
            row.command,
            row.path,
            row.medianMs.toFixed(2),
            row.p90Ms.toFixed(2),
            row.path.startsWith('bare sh') ? '-' : row.overMs.toFixed(2),
            row.path.startsWith('bare') ? '-' : row.overBashMs.toFixed(2),
          ]),
        },
        { headers: ['once per run', 'ms (plan, sandbox, supervisor, first `true`)'], rows: Object.entries(startMs).map(([name, ms]) => [name, ms.toFixed(1)]) },
        {
          headers: ['background jobs (warm sandbox)', 'value'],
          rows: [
            ['start a job (request → process group running), ms', jobs.startMs.toFixed(1)],
            ['stop a job (SIGTERM → group gone), ms', jobs.stopMs.toFixed(1)],
            ['end a run with 3 jobs, one ignoring SIGTERM, ms', jobs.disposeMs.toFixed(1)],
            ['job processes left after the run ended', jobs.leftAfterDispose],
          ],
        },
      ],
      notes: [describeWarmOverhead(rows)],
    };
  },
};

/**
 * The warm sandbox against its target, in words, from the run's own rows: after a model turn (the usual case), and
 * for the second tool call of one reply.
 *
 * @example describeWarmOverhead(rows) // 'After a model turn, the warm sandbox (bubblewrap) takes 1.9 to 2.6 ms less than a bare sh -c …'
 */
export function describeWarmOverhead(rows: readonly CommandCost[]): string {
  const warm = rows.filter((row) => row.path === 'warm sandbox, bubblewrap');
  if (warm.length === 0) return 'bubblewrap is not available here, so the warm sandbox was measured unsandboxed only.';
  const within = warm.filter((row) => row.overMs <= TARGET_MS).length;
  const second = rows.filter((row) => row.path === 'warm sandbox, bubblewrap, second in a row');
  return (
    `After a model turn, the warm sandbox (bubblewrap) takes ${difference(warm.map((row) => row.overMs))} than a bare sh -c of the same command in this run ` +
    `(target: within ${TARGET_MS} ms more; met for ${within} of ${warm.length} commands), and ${difference(warm.map((row) => row.overBashMs))} than a bare bash -c, ` +
    "the shell rein runs every command in (the difference between the two is bash's start-up against sh's)." +
    (second.length > 0
      ? ` The second tool call of one reply, with no model turn before it, takes ${difference(second.map((row) => row.overMs))} than a bare sh -c.`
      : '')
  );
}

/** A range of differences in words: "1.2 ms more", "1.2 to 3.4 ms more", "0.5 to 2.0 ms less", "from 0.5 ms less to 1.0 ms more". */
function difference(values: number[]): string {
  // To the tenth shown, so that -0.02 reads as 0.0 ms more, not "from 0.0 ms less".
  const shown = values.map((value) => Math.round(value * 10) / 10 || 0);
  const low = Math.min(...shown);
  const high = Math.max(...shown);
  const amount = (ms: number) => Math.abs(ms).toFixed(1);
  if (amount(low) === amount(high) && low * high >= 0) return `${amount(low)} ms ${low < 0 ? 'less' : 'more'}`;
  if (low >= 0) return `${amount(low)} to ${amount(high)} ms more`;
  if (high < 0) return `${amount(high)} to ${amount(low)} ms less`;
  return `from ${amount(low)} ms less to ${amount(high)} ms more`;
}
