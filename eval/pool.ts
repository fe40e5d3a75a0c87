import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { inLanes, ReinError } from 'rein/lib';
import type { EvalJob } from './job.js';
import type { RunRecord } from './run-record.js';
import { type WorkerOutcome, WorkerRun } from './worker-run.js';

/** Times a job is retried when its worker ended before starting it (a process hiccup, not a run outcome). */
const START_RETRIES = 2;

interface PoolOptions {
  parallel: number;
  /** The compiled worker entry (`dist/eval/worker.js`). */
  workerPath?: string;
  env?: NodeJS.ProcessEnv;
  onStart?(job: EvalJob): void;
  onRecord(record: RunRecord, job: EvalJob): void;
}

/**
 * Runs jobs in child processes, `parallel` at a time, one process per run.
 * A run that crashes its process, or outlives its phase's time limit (then
 * its process group is killed), is recorded as `crash` or `timeout` with
 * the reason; the other runs go on.
 *
 * @example await runPool(jobs, { parallel: 2, onRecord: (record) => results.append(record) });
 */
export async function runPool(jobs: readonly EvalJob[], options: PoolOptions): Promise<void> {
  const workerPath = options.workerPath ?? defaultWorkerPath();
  if (!existsSync(workerPath)) throw new ReinError(`eval worker not found at ${workerPath}: build rein first (npm run build)`);
  const env = options.env ?? process.env;
  await inLanes(jobs, options.parallel, async (job) => {
    options.onStart?.(job);
    options.onRecord(await runWithRetries(job, workerPath, env), job);
  });
}

/** The compiled `worker.js` of rein-eval, by the package's name: this module runs compiled, from source (tests) and bundled into the rein command. */
function defaultWorkerPath(): string {
  return createRequire(import.meta.url).resolve('rein-eval/worker.js');
}

async function runWithRetries(job: EvalJob, workerPath: string, env: NodeJS.ProcessEnv): Promise<RunRecord> {
  for (let attempt = 0; ; attempt++) {
    const outcome = await new Promise<WorkerOutcome>((settle) => new WorkerRun(job, workerPath, env, settle));
    if (outcome.started || attempt >= START_RETRIES) return outcome.record;
  }
}
