import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfigurations } from 'rein-eval/configurations.js';
import { type JobRunner, runEval } from 'rein-eval/eval-runner.js';
import { createQueueRunner, type JobTiming } from 'rein-eval/queue/coordinator.js';
import { parseRedisUrl } from 'rein-eval/queue/redis-endpoint.js';
import { loadTaskSet } from 'rein-eval/task.js';
import { inCheckout, reinBin } from './checkout.js';

/** One way of running the offline suite, timed. */
interface QueueScalingRow {
  setup: string;
  /** Local pool processes, or queue workers (one job at a time each). */
  lanes: number;
  queue: boolean;
  /** The sampled tasks: the two halves' wall times added. */
  wallSeconds: number;
  /** Each half's wall time, in the order the halves ran. */
  rounds: number[];
  jobs: number;
  /** Summed over the halves, like `notDone`. */
  resolved: number;
  /** Runs that did not end `done`, by status (under heavy load, runs hit their time limit). */
  notDone: Record<string, number>;
}

/** The queue's own cost per job with one worker, medians over the sampled jobs, in ms. */
interface QueueOverhead {
  /** On the worker, outside the run: fetching and checking the task and rules, packing the run files, finishing the job. */
  workerMs: number;
  /** From the worker finishing the job to its result being on disk at the coordinator. */
  returnMs: number;
  /** From one job finishing to the worker starting the next. */
  pickupMs: number;
  totalMs: number;
}

const rein = reinBin();
const tasksDir = inCheckout('eval', 'suite');
const silent = { isTTY: false, write: () => true };

/**
 * Wall time of `rein eval eval/suite --preset default` on a third of the
 * suite's tasks (`queueSample`) run by the local pool (its default of min(4, CPUs)
 * processes) and through a Redis queue with 1, 2 and 4 `rein worker`
 * processes of one job each, on this machine, and the queue's own cost per
 * job, timed directly with one worker. Each setup runs the sample once, in two
 * halves: every setup runs the first half, then every setup in reverse order
 * the second, so a machine whose load drifts during the bench favours no
 * setup. Null when redis-server is not installed. The coordinator runs in this
 * process; each worker is the built CLI.
 */
export async function measureQueueScaling(): Promise<{ rows: QueueScalingRow[]; overhead: QueueOverhead } | null> {
  if (spawnSync('redis-server', ['--version']).status !== 0) return null;
  const dir = mkdtempSync(join(tmpdir(), 'rein-bench-queue-'));
  const port = await freePort();
  const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  try {
    await waitFor(
      () =>
        spawnSync('redis-cli', ['-p', String(port), 'ping'])
          .stdout?.toString()
          .trim() === 'PONG',
    );
    const url = `redis://127.0.0.1:${port}`;
    const pool = Math.max(1, Math.min(4, availableParallelism()));
    // One list per eval the single worker served: a worker takes its next job only within one eval.
    const timings: JobTiming[][] = [];
    const setups: Array<(only: string[]) => Promise<Measured>> = [
      (only) => timeLocal(pool, dir, only),
      ...[1, 2, 4].map((workers) => (only: string[]) => {
        const served: JobTiming[] = [];
        if (workers === 1) timings.push(served);
        return timeQueue(workers, url, dir, only, workers === 1 ? (timing) => served.push(timing) : undefined);
      }),
    ];
    const halves = sampleHalves(queueSample(loadTaskSet(tasksDir).tasks.map((task) => task.id)));
    const measured: Measured[][] = setups.map(() => []);
    const forward = setups.map((_, index) => index);
    for (const [half, order] of [
      [halves[0], forward],
      [halves[1], [...forward].reverse()],
    ] as const) {
      for (const index of order) measured[index]!.push(await setups[index]!(half));
    }
    return { rows: measured.map(combine), overhead: overheadOf(timings) };
  } finally {
    redis.kill('SIGTERM');
    await new Promise((resolve) => redis.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

type Measured = Omit<QueueScalingRow, 'rounds'>;

async function timeLocal(parallel: number, dir: string, only: string[]): Promise<Measured> {
  return {
    setup: `local pool, ${parallel} process${parallel === 1 ? '' : 'es'}`,
    lanes: parallel,
    queue: false,
    ...(await timeEval(dir, { parallel, only })),
  };
}

/**
 * Every third task id in sorted order: a third of the suite, with both
 * languages (the ids start with theirs). The queue's cost is per job, so a
 * sample measures it as well as the whole suite and keeps `npm run bench`
 * short; section 5 runs every task.
 *
 * @example queueSample(['js-a', 'js-b', 'js-c', 'py-a', 'py-b', 'py-c']) // ['js-a', 'py-a']
 */
export function queueSample(ids: readonly string[]): string[] {
  return [...ids].sort().filter((_, index) => index % 3 === 0);
}

/** The sample in two halves of alternating ids, so each half mixes the languages. */
function sampleHalves(ids: readonly string[]): [string[], string[]] {
  return [ids.filter((_, index) => index % 2 === 0), ids.filter((_, index) => index % 2 === 1)];
}

function combine(rounds: Measured[]): QueueScalingRow {
  const notDone: Record<string, number> = {};
  for (const round of rounds) for (const [status, count] of Object.entries(round.notDone)) notDone[status] = (notDone[status] ?? 0) + count;
  return {
    ...rounds[0]!,
    rounds: rounds.map((round) => round.wallSeconds),
    notDone,
    wallSeconds: rounds.reduce((total, round) => total + round.wallSeconds, 0),
    jobs: rounds.reduce((total, round) => total + round.jobs, 0),
    resolved: rounds.reduce((total, round) => total + round.resolved, 0),
  };
}

async function timeQueue(count: number, url: string, dir: string, only: string[], observe?: (timing: JobTiming) => void): Promise<Measured> {
  const workers = Array.from({ length: count }, (_, index) => startWorker(url, join(dir, `cache-${count}-${index}`)));
  try {
    await Promise.all(workers.map((worker) => worker.ready));
    const runner: JobRunner = createQueueRunner({ endpoint: parseRedisUrl(url), attempts: 2, ...(observe ? { observe } : {}) });
    return { setup: `queue, ${count} worker${count === 1 ? '' : 's'}`, lanes: count, queue: true, ...(await timeEval(dir, { parallel: 1, runner, only })) };
  } finally {
    for (const worker of workers) worker.child.kill('SIGTERM');
    await Promise.all(workers.map((worker) => new Promise((resolve) => (worker.child.exitCode === null ? worker.child.once('exit', resolve) : resolve(null)))));
  }
}

async function timeEval(
  dir: string,
  options: { parallel: number; runner?: JobRunner; only: string[] },
): Promise<Pick<Measured, 'wallSeconds' | 'jobs' | 'resolved' | 'notDone'>> {
  const outDir = mkdtempSync(join(dir, 'out-'));
  const began = process.hrtime.bigint();
  const result = await runEval({ tasksDir, configurations: parseConfigurations(['default'], []), repeat: 1, outDir, progress: silent, ...options });
  const wallSeconds = Number(process.hrtime.bigint() - began) / 1e9;
  const records = result.view.records;
  const notDone: Record<string, number> = {};
  for (const record of records) if (record.status !== 'done') notDone[record.status] = (notDone[record.status] ?? 0) + 1;
  return { wallSeconds, jobs: records.length, resolved: records.filter((record) => record.resolved).length, notDone };
}

/** Medians of the queue's parts of each job's time, from one worker taking the jobs one after another. */
function overheadOf(evals: JobTiming[][]): QueueOverhead {
  const all = evals.flat();
  const workerMs = median(all.map((timing) => timing.finishedOn - timing.processedOn - timing.runMs));
  const returnMs = median(all.map((timing) => timing.collectedAt - timing.finishedOn));
  const pickupMs = median(
    evals.flatMap((timings) => {
      const ordered = [...timings].sort((a, b) => a.processedOn - b.processedOn);
      return ordered.slice(1).map((timing, index) => timing.processedOn - ordered[index]!.finishedOn);
    }),
  );
  return { workerMs, returnMs, pickupMs, totalMs: workerMs + returnMs + pickupMs };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length === 0 ? Number.NaN : sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** A `rein worker` child, ready once it says it is connected (its start-up is not part of the eval's time). */
function startWorker(url: string, cache: string): { child: ChildProcess; ready: Promise<void> } {
  const child = spawn(process.execPath, [rein, 'worker', '--queue', url, '--parallel', '1', '--cache', cache], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk) => {
      log += chunk;
      if (log.includes('connected to')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`rein worker exited (${code}) before connecting:\n${log}`)));
  });
  return { child, ready };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitFor(condition: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 20_000; !condition(); await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (Date.now() > deadline) throw new Error('redis-server did not start within 20 s');
  }
}
