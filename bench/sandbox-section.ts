import type { formatTable } from './table.js';
import { measureCommandOverhead, measureJobs } from './sandbox-overhead.js';

/** Rounds of each command on each path; medians are reported. */
const ROUNDS = 40;

/**
 * `npm run bench` section 5: what one command costs on each path (bare `sh -c`,
 * a new sandbox per command as before, the run's warm sandbox), measured in
 * turns in one run, and what background jobs cost. `--no-sandbox` skips it.
 */
export async function sandboxSection(out: (text: string) => void, table: (...args: Parameters<typeof formatTable>) => void): Promise<void> {
  out(`5. Command overhead: bare sh -c vs a sandbox per command (before) vs the run's warm sandbox (median of ${ROUNDS} turns each, taken in rotation)`);
  const { rows, startMs } = await measureCommandOverhead(ROUNDS);
  table(['command', 'path', 'median ms', 'p90 ms', 'over bare sh -c, ms'], rows.map((row) => [
    row.command, row.path, row.medianMs.toFixed(2), row.p90Ms.toFixed(2), row.path.startsWith('bare') ? '-' : row.overMs.toFixed(2),
  ]));
  table(['once per run', 'ms (plan, sandbox, supervisor, first `true`)'], Object.entries(startMs).map(([name, ms]) => [name, ms.toFixed(1)]));
  const jobs = await measureJobs();
  table(['background jobs (warm sandbox)', 'value'], [
    ['start a job (request → process group running), ms', jobs.startMs.toFixed(1)],
    ['stop a job (SIGTERM → group gone), ms', jobs.stopMs.toFixed(1)],
    ['end a run with 3 jobs, one ignoring SIGTERM, ms', jobs.disposeMs.toFixed(1)],
    ['job processes left after the run ended', jobs.leftAfterDispose],
  ]);
}
