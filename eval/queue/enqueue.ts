import { relative } from 'node:path';
import type { Redis } from 'ioredis';
import type { EvalJob } from '../job.js';
import { configKeyFor, jobIdFor } from './job-ids.js';
import { isStored, storeFile, storeTask } from './task-store.js';
import { fileKey, type JobData, taskKey } from './wire-format.js';

/** An eval job with its queue id and the data that travels. */
export interface QueuedJob {
  id: string;
  job: EvalJob;
  data: JobData;
}

/**
 * Stores each task folder and rules file the jobs need in Redis (once per
 * content hash) and describes every job for the wire: ids, hashes, the
 * model's name, the price, the run's path under `<out>`. Nothing else about
 * the coordinator's machine travels, and no endpoint or key.
 *
 * @example const queued = await prepareJobs(redis, pending, { evalId, attempts: 2 });
 */
export async function prepareJobs(redis: Redis, jobs: readonly EvalJob[], options: { evalId: string; attempts: number }): Promise<QueuedJob[]> {
  const taskHashes = new Map<string, string>();
  const files = new Map<string, { name: string; hash: string }>();
  for (const job of jobs) {
    if (!taskHashes.has(job.task.dir)) taskHashes.set(job.task.dir, await storeTask(redis, job.task.id, job.task.dir));
    const path = job.config.configPath;
    if (path && !files.has(path)) files.set(path, await storeFile(redis, path));
  }
  return jobs.map((job) => {
    const taskHash = taskHashes.get(job.task.dir)!;
    const file = job.config.configPath ? files.get(job.config.configPath) : undefined;
    const data: JobData = {
      v: 1,
      evalId: options.evalId,
      task: { id: job.task.id, hash: taskHash },
      config: { label: job.config.label, preset: job.config.preset, rulesHash: job.configHash, ...(file ? { file } : {}) },
      repeat: job.repeat,
      model: job.model.kind === 'endpoint' ? { kind: 'endpoint', name: job.model.model } : { kind: 'simulated' },
      modelName: job.modelName,
      price: job.price,
      priceSource: job.priceSource,
      runPath: relative(job.outDir, job.runDir),
      attempts: options.attempts,
    };
    return { id: jobIdFor(options.evalId, taskHash, configKeyFor(job.config.label, job.configHash, job.modelName), job.repeat), job, data };
  });
}

/**
 * Stores again what a job needs if Redis lost it (a restart without
 * persistence). A task folder that changed on disk since the eval began
 * gets a new hash; the job keeps the old one and its worker refuses it.
 */
export async function restoreInputs(redis: Redis, queued: QueuedJob): Promise<void> {
  if (!(await isStored(redis, taskKey(queued.data.task.hash)))) await storeTask(redis, queued.job.task.id, queued.job.task.dir);
  const file = queued.data.config.file;
  if (file && queued.job.config.configPath && !(await isStored(redis, fileKey(file.hash)))) await storeFile(redis, queued.job.config.configPath);
}
