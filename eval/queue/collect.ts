import { join, relative } from 'node:path';
import type { EvalJob } from '../job.js';
import type { RunRecord } from '../run-record.js';
import { recordFor } from '../run-task.js';
import { writeRunFiles } from './run-files.js';
import { describeWireProblem, jobResultSchema } from './wire-format.js';

/** A finished queue job as BullMQ hands it back. */
interface FinishedJob {
  state: 'completed' | 'failed';
  returnvalue: unknown;
  failedReason?: string;
  attemptsStarted: number;
  processedOn?: number;
}

/**
 * The results line of a finished queue job, with its run directory written
 * under `<out>/runs/`: the worker's own record for a completed job; a
 * `crash` record naming the reason for a job that failed every attempt or
 * whose result cannot be read. `notes` says what the worker's size cap cut.
 *
 * @example const { record } = await collectFinished(finished, job);
 */
export async function collectFinished(finished: FinishedJob, job: EvalJob): Promise<{ record: RunRecord; notes: string[]; runMs?: number }> {
  const startedAt = new Date(finished.processedOn ?? Date.now()).toISOString();
  if (finished.state === 'failed') {
    const starts = finished.attemptsStarted === 1 ? '1 start' : `${finished.attemptsStarted} starts`;
    return { record: crash(job, startedAt, `queue: ${finished.failedReason ?? 'failed'} (after ${starts})`), notes: [] };
  }
  const parsed = jobResultSchema.safeParse(finished.returnvalue);
  if (!parsed.success)
    return {
      record: crash(job, startedAt, `queue: the worker's result is unreadable (${describeWireProblem(parsed.error)}); is it a different rein version?`),
      notes: [],
    };
  const { record, files, cut, worker, runMs } = parsed.data;
  if (record.task !== job.task.id || record.config !== job.config.label || record.repeat !== job.repeat) {
    return {
      record: crash(job, startedAt, `queue: worker ${worker} answered with the result of ${record.task} × ${record.config} #${record.repeat}`),
      notes: [],
    };
  }
  await writeRunFiles(job.runDir, files);
  const notes = cut.map((entry) =>
    entry.kept === 0
      ? `${job.task.id} × ${job.config.label} #${job.repeat}: ${entry.name} (${mb(entry.bytes)}) left out by worker ${worker}'s result size cap`
      : `${job.task.id} × ${job.config.label} #${job.repeat}: ${entry.name} cut to its first ${mb(entry.kept)} of ${mb(entry.bytes)} by worker ${worker}'s result size cap`,
  );
  return { record: { ...record, tracePath: relative(job.outDir, join(job.runDir, 'trace.jsonl')) }, notes, ...(runMs !== undefined ? { runMs } : {}) };
}

function crash(job: EvalJob, startedAt: string, reason: string): RunRecord {
  return recordFor(job, startedAt, { status: 'crash', reason, wallSeconds: 0 }, null);
}

function mb(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MB`;
}
