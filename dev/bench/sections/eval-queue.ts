import { availableParallelism } from 'node:os';
import { measureQueueScaling } from '../eval-queue.js';
import { withDirectPython } from '../python-on-path.js';
import { type BenchSection, times } from '../section.js';

/** Eval wall time through the Redis job queue against the local pool, and the queue's own cost per job. */
export const evalQueueSection: BenchSection = {
  id: 'queue',
  title: `Eval wall time on a third of the offline suite (every third task of eval/suite, preset default): the local pool (its default, min(4, CPUs) processes) vs a Redis job queue with 1, 2 and 4 workers on this machine (${availableParallelism()} CPUs)`,
  async run() {
    const { value: measured, note: pythonNote } = await withDirectPython(measureQueueScaling);
    if (!measured) return { tables: [], notes: ['Skipped: redis-server is not installed.'] };
    const { rows, overhead } = measured;
    const local = rows[0]!;
    const fastest = rows.reduce((best, row) => (row.wallSeconds < best.wallSeconds ? row : best));
    return {
      tables: [
        {
          headers: ['setup', 'runs', 'resolved', 'not done', 'wall seconds, the sampled tasks', 'first half, second half', `vs ${local.setup}`],
          rows: rows.map((row) => [
            row.setup,
            row.jobs,
            `${row.resolved}/${row.jobs}`,
            Object.entries(row.notDone)
              .map(([status, count]) => `${count} ${status}`)
              .join(', ') || '-',
            row.wallSeconds.toFixed(1),
            row.rounds.map((seconds) => seconds.toFixed(1)).join(', '),
            times(row.wallSeconds / local.wallSeconds),
          ]),
        },
        {
          headers: ['queue overhead per job, 1 worker (median ms)', 'worker: fetch, check, pack', 'result back on disk', 'worker takes the next job', 'total'],
          rows: [['measured per job', overhead.workerMs.toFixed(0), overhead.returnMs.toFixed(0), overhead.pickupMs.toFixed(0), overhead.totalMs.toFixed(0)]],
        },
      ],
      notes: [
        `${
          fastest === local
            ? `No queue setup was faster than the ${local.setup} in this run.`
            : `The fastest setup in this run: ${fastest.setup}, ${times(fastest.wallSeconds / local.wallSeconds)} the ${local.setup}.`
        } Every worker runs on this one machine, so more workers than CPUs cannot help here.`,
        pythonNote,
      ],
    };
  },
};
