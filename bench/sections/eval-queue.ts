import { availableParallelism } from 'node:os';
import { measureQueueScaling } from '../eval-queue.js';
import type { BenchSection } from '../section.js';

/** Eval wall time through the Redis job queue against the local pool, and the queue's own cost per job. */
export const evalQueueSection: BenchSection = {
  id: 'queue',
  title: `Eval wall time on the offline suite (eval/suite, preset default): local pool vs a Redis job queue with 1, 2 and 4 workers on this machine (${availableParallelism()} CPUs)`,
  async run() {
    const measured = await measureQueueScaling();
    if (!measured) return { tables: [], notes: ['Skipped: redis-server is not installed.'] };
    const { rows, overhead } = measured;
    const single = rows[0]!;
    const fastest = rows.reduce((best, row) => (row.wallSeconds < best.wallSeconds ? row : best));
    return {
      tables: [
        {
          headers: ['setup', 'runs (2 rounds)', 'resolved', 'not done', 'wall seconds, mean', 'round 1, round 2', 'vs local pool, 1 process'],
          rows: rows.map((row) => [
            row.setup,
            row.jobs,
            `${row.resolved}/${row.jobs}`,
            Object.entries(row.notDone)
              .map(([status, count]) => `${count} ${status}`)
              .join(', ') || '-',
            row.wallSeconds.toFixed(1),
            row.rounds.map((seconds) => seconds.toFixed(1)).join(', '),
            `${(row.wallSeconds / single.wallSeconds).toFixed(2)}x`,
          ]),
        },
        {
          headers: ['queue overhead per job, 1 worker (median ms)', 'worker: fetch, check, pack', 'result back on disk', 'worker takes the next job', 'total'],
          rows: [['measured per job', overhead.workerMs.toFixed(0), overhead.returnMs.toFixed(0), overhead.pickupMs.toFixed(0), overhead.totalMs.toFixed(0)]],
        },
      ],
      notes: [
        `The fastest setup in this run: ${fastest.setup}, ${(fastest.wallSeconds / single.wallSeconds).toFixed(2)}x the local pool's one process. Every worker runs on this one machine, so more workers than CPUs cannot help here.`,
      ],
    };
  },
};
