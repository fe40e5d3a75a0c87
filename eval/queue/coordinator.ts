import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import type { JobRunner } from '../eval-runner.js';
import type { EvalJob } from '../job.js';
import type { RunRecord } from '../run-record.js';
import { collectFinished } from './collect.js';
import { prepareJobs, type QueuedJob, restoreInputs } from './enqueue.js';
import { holdEvalLock } from './eval-lock.js';
import { evalIdOf } from './job-ids.js';
import { watchLiveStatus } from './live-status.js';
import { openRedis, probeRedis, type RedisEndpoint } from './redis-endpoint.js';
import { STORE_TTL_S } from './task-store.js';
import { KEY_PREFIX, QUEUE_NAME } from './wire-format.js';

interface QueueRunnerOptions {
  endpoint: RedisEndpoint;
  /** Times a job may start in all (a run whose worker died is re-run until then). */
  attempts: number;
  /** How often every unfinished job is looked at directly, under the event stream (ms). */
  sweepMs?: number;
  /** Told the times of each collected job (epoch ms), for measuring the queue's own cost (`bench/eval-queue.ts`). */
  observe?(timing: JobTiming): void;
}

/** When a job was taken and finished by its worker, how long its run took there, and when its result was on disk here. */
export interface JobTiming {
  processedOn: number;
  finishedOn: number;
  runMs: number;
  collectedAt: number;
}

type Report = Parameters<JobRunner['run']>[1];

/**
 * `rein eval --queue`: the coordinator. Stores the tasks in Redis, enqueues
 * one BullMQ job per pending (task, configuration, repeat) under a
 * deterministic id, and collects each finished job into the same records
 * the local pool makes, until every job has one. Workers anywhere take the
 * jobs (`rein worker`). Killed and re-run with the same `--out`, it finds
 * its jobs again: finished ones are collected, none is enqueued twice.
 *
 * @example await runEval({ ...options, runner: createQueueRunner({ endpoint: parseRedisUrl('redis://10.0.0.5:6379'), attempts: 2 }) });
 */
export function createQueueRunner(options: QueueRunnerOptions): JobRunner {
  let status = 'connecting to Redis';
  return {
    endpointNote: "each worker's own endpoint (rein worker --base-url, or OPENAI_BASE_URL where it runs)",
    status: () => status,
    async run(jobs, report) {
      if (jobs.length === 0) return;
      await probeRedis(options.endpoint);
      const session = new CoordinatorSession(options, report, (text) => {
        status = text;
      });
      try {
        await session.run(jobs);
      } finally {
        await session.close();
      }
    },
  };
}

class CoordinatorSession {
  private readonly redis: Redis;
  private readonly eventsRedis: Redis;
  private readonly queue: Queue;
  private readonly events: QueueEvents;
  private readonly pending = new Map<string, QueuedJob>();
  private chain: Promise<void> = Promise.resolve();
  private failure: Error | null = null;
  private settle: () => void = () => undefined;
  private timers: NodeJS.Timeout[] = [];
  private live: { stop(): void } | null = null;
  private sweeping = false;
  private restored = 0;

  constructor(
    private readonly options: QueueRunnerOptions,
    private readonly report: Report,
    private readonly setStatus: (text: string) => void,
  ) {
    this.redis = openRedis(options.endpoint, 'rein-eval-coordinator');
    this.eventsRedis = openRedis(options.endpoint, 'rein-eval-coordinator-events');
    this.queue = new Queue(QUEUE_NAME, { connection: this.redis, prefix: KEY_PREFIX });
    this.events = new QueueEvents(QUEUE_NAME, { connection: this.eventsRedis, prefix: KEY_PREFIX });
    // Connection errors are expected during a Redis restart: the clients reconnect, and the live status says so once.
    const ignore = () => undefined;
    this.redis.on('error', ignore);
    this.eventsRedis.on('error', ignore);
    this.queue.on('error', ignore);
    this.events.on('error', ignore);
  }

  async run(jobs: readonly EvalJob[]): Promise<void> {
    const evalId = evalIdOf(jobs[0]!.outDir);
    const lock = await holdEvalLock(this.redis, evalId, this.report.note);
    try {
      const queued = await prepareJobs(this.redis, jobs, { evalId, attempts: this.options.attempts });
      for (const entry of queued) this.pending.set(entry.id, entry);
      const done = new Promise<void>((resolve) => {
        this.settle = resolve;
      });
      this.events.on('completed', ({ jobId }) => this.enqueueCheck(jobId));
      this.events.on('failed', ({ jobId }) => this.enqueueCheck(jobId));
      await this.events.waitUntilReady();
      await this.add(queued);
      this.report.note(
        `${queued.length} job${queued.length === 1 ? '' : 's'} on the queue at ${this.options.endpoint.display} (eval ${evalId}); workers take them: rein worker --queue ${this.options.endpoint.display}`,
      );
      void this.sweep();
      this.timers.push(setInterval(() => void this.sweep(), this.options.sweepMs ?? 5_000));
      this.live = watchLiveStatus(this.queue, this.redis, {
        display: this.options.endpoint.display,
        note: this.report.note,
        setStatus: this.setStatus,
        regained: () => void this.sweep(),
      });
      await done;
      if (this.failure) throw this.failure;
    } finally {
      await lock.release();
    }
  }

  async close(): Promise<void> {
    this.live?.stop();
    for (const timer of this.timers) clearInterval(timer);
    await this.chain;
    await this.events.close().catch(() => undefined);
    await this.queue.close().catch(() => undefined);
    this.redis.disconnect();
    this.eventsRedis.disconnect();
  }

  private async add(queued: readonly QueuedJob[]): Promise<void> {
    // Adding a job id that exists (waiting, running or finished) is a no-op in BullMQ: nothing runs twice.
    for (let start = 0; start < queued.length; start += 500) {
      await this.queue.addBulk(
        queued.slice(start, start + 500).map((entry) => ({
          name: 'run',
          data: entry.data,
          opts: { jobId: entry.id, attempts: entry.data.attempts, removeOnComplete: { age: STORE_TTL_S }, removeOnFail: { age: STORE_TTL_S } },
        })),
      );
    }
  }

  /** Every change to `pending` and the results file goes through here, one at a time. */
  private serial(task: () => Promise<void>): void {
    this.chain = this.chain.then(task).catch((error: unknown) => {
      this.failure ??= error instanceof Error ? error : new Error(String(error));
      this.settle();
    });
  }

  private enqueueCheck(jobId: string): void {
    if (this.pending.has(jobId)) this.serial(() => this.check(jobId));
  }

  private async check(jobId: string): Promise<void> {
    const entry = this.pending.get(jobId);
    const job = entry ? await this.queue.getJob(jobId) : undefined;
    if (!entry || !job) return;
    const state = await job.getState();
    if (state !== 'completed' && state !== 'failed') return;
    const { record, notes, runMs } = await collectFinished(
      {
        state,
        returnvalue: job.returnvalue,
        failedReason: job.failedReason,
        attemptsStarted: job.attemptsStarted,
        ...(job.processedOn ? { processedOn: job.processedOn } : {}),
      },
      entry.job,
    );
    this.finish(jobId, entry.job, record);
    if (runMs !== undefined && job.processedOn && job.finishedOn)
      this.options.observe?.({ processedOn: job.processedOn, finishedOn: job.finishedOn, runMs, collectedAt: Date.now() });
    for (const text of notes) this.report.note(text);
    // The result is on disk now; a kill before this line leaves the job to expire with its age limit.
    await job.remove().catch(() => undefined);
  }

  private finish(jobId: string, job: EvalJob, record: RunRecord): void {
    this.pending.delete(jobId);
    this.report.record(record, job);
    if (this.pending.size === 0) this.settle();
  }

  /**
   * The safety net under the event stream: collects what finished unseen, and enqueues again what
   * Redis lost. The states are read outside the serial chain (a long sweep over a slow link must not
   * hold up collecting); each action re-checks its job inside it.
   */
  private async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      for (const jobId of [...this.pending.keys()]) {
        const state = await this.queue.getJobState(jobId);
        if (state === 'completed' || state === 'failed') this.serial(() => this.check(jobId));
        else if (state === 'unknown') this.serial(() => this.restore(jobId));
      }
      this.serial(async () => {
        if (this.restored === 0) return;
        this.report.note(`enqueued ${this.restored} job${this.restored === 1 ? '' : 's'} again that Redis no longer had (restarted without persistence?)`);
        this.restored = 0;
      });
    } catch {
      // The next sweep tries again.
    } finally {
      this.sweeping = false;
    }
  }

  private async restore(jobId: string): Promise<void> {
    const entry = this.pending.get(jobId);
    if (!entry || (await this.queue.getJobState(jobId)) !== 'unknown') return;
    await restoreInputs(this.redis, entry);
    await this.add([entry]);
    this.restored++;
  }
}
