import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { JobRefused } from 'rein/lib';
import type { EvalJob } from '../job.js';
import { runPool } from '../pool.js';
import { describeRun } from '../progress.js';
import type { RunRecord } from '../run-record.js';
import { materializeJob, type WorkerContext } from './materialize-job.js';
import { describeRedisError, openRedis, probeRedis, type RedisEndpoint } from './redis-endpoint.js';
import { packRunFiles } from './run-files.js';
import { describeWireProblem, type JobResult, jobDataSchema, KEY_PREFIX, QUEUE_NAME, WIRE_VERSION } from './wire-format.js';
import { createWorkerTemp, pruneCache } from './worker-files.js';

interface QueueWorkerOptions {
  endpoint: RedisEndpoint;
  /** Jobs run at once, each in its own process as in the local pool. */
  parallel: number;
  cache: string;
  /** A job whose worker stops renewing its lock this long is taken as stalled and re-run elsewhere. */
  stallSeconds: number;
  /** Largest compressed result (trace and run files) sent back. */
  maxResultBytes: number;
  keepWorkspaces: boolean;
  /** The runs' environment: the worker's own, with its model endpoint and key. */
  env: NodeJS.ProcessEnv;
  /** The worker's model endpoint; null when it has none (it then refuses endpoint jobs). */
  modelEndpoint: { baseURL?: string } | null;
  /** sha256 of the rules files the operator reviewed: a job's rules module runs only if it is one of them. */
  trustedRules?: readonly string[];
  /** Run queued tasks' setup_cmd on the host and import their simulated model modules, as a local eval does. */
  hostTaskCode?: boolean;
  log(text: string): void;
  /** The compiled eval worker entry (`dist/eval/worker.js`). */
  workerPath?: string;
}

export interface QueueWorker {
  /** `host:pid`, as jobs and logs name this worker. */
  name: string;
  /** Stops taking jobs, waits for the running ones, disconnects and removes its temp dir. */
  close(): Promise<void>;
  /** Before exiting at once: removes the temp dir of the runs this worker abandons (other workers re-run them). */
  abandon(): void;
  /** Seconds since the last job ended; 0 while one runs. */
  idleSeconds(): number;
}

/**
 * `rein worker`: takes eval jobs from the queue and runs each exactly as the
 * local pool does (a fresh workspace in a child process, the same phase
 * deadlines and grading), then sends back the run record and the run's
 * files, compressed and capped. Tasks come from Redis by content hash and
 * are cached; the model endpoint and key are this machine's own.
 *
 * @example const worker = await startQueueWorker({ endpoint, parallel: 2, cache, stallSeconds: 30, maxResultBytes: 32 << 20, keepWorkspaces: false, env: process.env, modelEndpoint: null, log: console.error });
 */
export async function startQueueWorker(options: QueueWorkerOptions): Promise<QueueWorker> {
  await probeRedis(options.endpoint);
  await pruneCache(options.cache);
  const temp = await createWorkerTemp();
  const name = `${hostname()}:${process.pid}`;
  const redis = openRedis(options.endpoint, `rein-worker-store:${name}`);
  const context: WorkerContext = {
    redis,
    cache: options.cache,
    temp: temp.root,
    keepWorkspaces: options.keepWorkspaces,
    endpoint: options.modelEndpoint,
    trustedRules: options.trustedRules ?? [],
    hostTaskCode: options.hostTaskCode ?? false,
  };
  const connection = openRedis(options.endpoint, `rein-worker:${name}`);
  const activity = { running: 0, since: Date.now() };
  const track = async <T>(work: () => Promise<T>): Promise<T> => {
    activity.running++;
    try {
      return await work();
    } finally {
      activity.running--;
      activity.since = Date.now();
    }
  };
  const worker = new Worker(QUEUE_NAME, (job: Job) => track(() => processJob(job, context, options, name, temp.root)), {
    connection,
    prefix: KEY_PREFIX,
    name,
    concurrency: options.parallel,
    lockDuration: options.stallSeconds * 1000,
    stalledInterval: options.stallSeconds * 1000,
    // Starts are limited per job by its `attempts` (see processJob), so BullMQ's own stall limit stays out of the way.
    maxStalledCount: 1_000,
  });
  const watch = watchConnection(redis, worker, options);
  await worker.waitUntilReady();
  options.log(`connected to ${options.endpoint.display} as ${name}; running up to ${options.parallel} job${options.parallel === 1 ? '' : 's'} at a time`);
  return {
    name,
    async close() {
      watch.stop();
      await worker.close();
      redis.disconnect();
      connection.disconnect();
      await temp.dispose();
    },
    abandon: () => rmSync(temp.root, { recursive: true, force: true }),
    idleSeconds: () => (activity.running > 0 ? 0 : (Date.now() - activity.since) / 1000),
  };
}

async function processJob(job: Job, context: WorkerContext, options: QueueWorkerOptions, name: string, temp: string): Promise<JobResult> {
  const parsed = jobDataSchema.safeParse(job.data);
  if (!parsed.success)
    throw new UnrecoverableError(
      `not a rein eval job this worker can read (${describeWireProblem(parsed.error)}); run the same rein version on coordinator and workers`,
    );
  const data = parsed.data;
  const label = `${data.task.id} × ${data.config.label} #${data.repeat}`;
  if (job.attemptsStarted > data.attempts) {
    const reason = `the run lost its worker ${job.attemptsStarted - 1} time${job.attemptsStarted === 2 ? '' : 's'} (killed, or its lock lapsed) and had ${data.attempts} attempt${data.attempts === 1 ? '' : 's'}`;
    options.log(`${label}: not started again: ${reason}`);
    throw new UnrecoverableError(reason);
  }
  options.log(`${label}: started${job.attemptsStarted > 1 ? ` (attempt ${job.attemptsStarted} of ${data.attempts})` : ''}`);
  let local: EvalJob;
  try {
    local = await materializeJob(data, context);
  } catch (error) {
    if (!(error instanceof JobRefused)) throw error;
    options.log(`${label}: refused: ${error.message}`);
    throw new Error(`refused by worker ${name}: ${error.message}`);
  }
  try {
    const began = Date.now();
    const record = await runLocally(local, options, temp);
    const runMs = Date.now() - began;
    const { files, cut } = await packRunFiles(local.runDir, options.maxResultBytes);
    options.log(describeRun(record));
    return { v: WIRE_VERSION, record, files, cut, worker: name, runMs };
  } finally {
    await rm(local.outDir, { recursive: true, force: true });
  }
}

/** One job through the local pool: same child process, deadlines, kills and crash records as `rein eval` without a queue. */
async function runLocally(job: EvalJob, options: QueueWorkerOptions, temp: string): Promise<RunRecord> {
  let result: RunRecord | null = null;
  await runPool([job], {
    parallel: 1,
    env: { ...options.env, TMPDIR: temp },
    onRecord: (record) => {
      result = record;
    },
    ...(options.workerPath ? { workerPath: options.workerPath } : {}),
  });
  return result!;
}

/** Says once when Redis goes away and once when it is back; BullMQ and ioredis reconnect on their own. */
function watchConnection(redis: Redis, worker: Worker, options: QueueWorkerOptions): { stop(): void } {
  let connected = true;
  let stopped = false;
  let lastError = '';
  redis.on('error', (error: Error) => {
    lastError = describeRedisError(error);
  });
  worker.on('error', (error: Error) => {
    lastError = describeRedisError(error);
  });
  redis.on('close', () => {
    if (!connected || stopped) return;
    connected = false;
    options.log(`lost the connection to Redis at ${options.endpoint.display}${lastError ? ` (${lastError})` : ''}; reconnecting, running jobs go on`);
  });
  redis.on('ready', () => {
    if (connected) return;
    connected = true;
    options.log('reconnected to Redis');
  });
  return {
    stop: () => {
      stopped = true;
    },
  };
}
