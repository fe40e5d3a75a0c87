import { measureCommandOverhead, measureJobs } from '../sandbox-overhead.js';
import type { BenchSection } from '../section.js';

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
          headers: ['command', 'path', 'median ms', 'p90 ms', 'over bare sh -c, ms'],
          rows: rows.map((row) => [
            row.command,
            row.path,
            row.medianMs.toFixed(2),
            row.p90Ms.toFixed(2),
            row.path.startsWith('bare') ? '-' : row.overMs.toFixed(2),
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
    };
  },
};
