import { mkdtemp } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Redis } from 'ioredis';
import { JobRefused, UsageError } from 'rein/lib';
import type { ReceivedRules } from 'rein/run';
import { resolveConfiguration } from '../configurations.js';
import type { EvalJob } from '../job.js';
import { loadTaskSet } from '../task.js';
import { fetchFile, fetchTask } from './task-store.js';
import type { JobData } from './wire-format.js';

export interface WorkerContext {
  redis: Redis;
  cache: string;
  /** The worker's temp dir: each job's run directory goes under it. */
  temp: string;
  keepWorkspaces: boolean;
  /** The worker's own model endpoint, if it has one (never from the job). */
  endpoint: { baseURL?: string } | null;
  /** sha256 of the rules files this worker's operator reviewed (`--trust-rules FILE`): the only job rules files it trusts. */
  trustedRules: readonly string[];
  /** The operator trusts this queue's task code (`--host-task-code`): setup_cmd on the host, simulated model modules imported. */
  hostTaskCode: boolean;
}

/** A job's rules file came over the queue: this worker trusts it only by the hashes its operator gave it. */
function receivedRules(context: WorkerContext): ReceivedRules {
  return {
    from: 'a queue job',
    trustedHashes: context.trustedRules,
    howToTrust: 'start this worker with --trust-rules FILE, FILE being your reviewed copy of it (its sha256 is what is trusted)',
  };
}

/**
 * A queue job as the local pool runs it: the task from the worker's cache
 * (checked against the job's hash, read with this worker's task schema),
 * the configuration's rules loaded here and checked against the
 * coordinator's hash, and a run directory in the worker's temp dir at the
 * same relative path it will have under the coordinator's `--out`.
 * Anything that does not match is refused, never run.
 *
 * @example const job = await materializeJob(data, context);
 */
export async function materializeJob(data: JobData, context: WorkerContext): Promise<EvalJob> {
  const taskDir = await fetchTask(context.redis, context.cache, data.task);
  const { tasks, problems } = loadTaskSet(dirname(taskDir));
  const task = tasks.find((entry) => entry.id === data.task.id);
  if (!task) throw new JobRefused(`task ${data.task.id}: ${problems[0]?.problem ?? 'not readable'} (read with this worker's rein version)`);
  const configPath = data.config.file ? await fetchFile(context.redis, context.cache, data.config.file) : undefined;
  const received = configPath ? receivedRules(context) : undefined;
  const rulesHash = await rulesHashOf(data, configPath, received);
  if (rulesHash !== data.config.rulesHash) {
    throw new JobRefused(
      `configuration ${data.config.label}: its rules hash to ${rulesHash} here and to ${data.config.rulesHash} on the coordinator; run the same rein version on both`,
    );
  }
  if (data.model.kind === 'endpoint' && !context.endpoint)
    throw new JobRefused(`model ${data.model.name}: this worker has no model endpoint (start it with OPENAI_BASE_URL or OPENAI_API_KEY set, or --base-url)`);
  const outDir = await mkdtemp(join(context.temp, 'job-'));
  return {
    task,
    config: { label: data.config.label, preset: data.config.preset, ...(configPath ? { configPath } : {}), ...(received ? { received } : {}) },
    configHash: data.config.rulesHash,
    repeat: data.repeat,
    model:
      data.model.kind === 'endpoint'
        ? { kind: 'endpoint', model: data.model.name, ...(context.endpoint?.baseURL ? { baseURL: context.endpoint.baseURL } : {}) }
        : { kind: 'simulated' },
    modelName: data.modelName,
    price: data.price,
    priceSource: data.priceSource,
    runDir: join(outDir, data.runPath),
    outDir,
    keepWorkspace: context.keepWorkspaces,
    taskCode: context.hostTaskCode ? 'host' : 'contained',
  };
}

async function rulesHashOf(data: JobData, configPath: string | undefined, received: ReceivedRules | undefined): Promise<string> {
  try {
    return (
      await resolveConfiguration({
        label: data.config.label,
        preset: data.config.preset,
        ...(configPath ? { configPath } : {}),
        ...(received ? { received } : {}),
      })
    ).hash;
  } catch (error) {
    if (error instanceof UsageError) throw new JobRefused(`configuration ${data.config.label}: ${error.message}`);
    throw error;
  }
}
