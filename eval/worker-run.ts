import { type ChildProcess, fork } from 'node:child_process';
import { rmSync } from 'node:fs';
import { WORKER_KILL_GRACE_S, WORKER_TERM_GRACE_MS } from 'rein/sandbox';
import type { EvalJob, WorkerMessage } from './job.js';
import type { RunRecord } from './run-record.js';
import { recordFor } from './run-task.js';

/** Seconds a worker may take to start and report its first phase. */
const STARTUP_S = 60;
const STDERR_TAIL = 2_000;
/** After 'exit', how long to wait for 'close' (a stray grandchild may hold stderr open). */
const CLOSE_WAIT_MS = 2_000;

/** A finished worker: its record, and whether it got as far as starting the job. */
export interface WorkerOutcome {
  record: RunRecord;
  started: boolean;
}

/**
 * One job in one forked worker (its own process group). Each phase the
 * worker reports re-arms a deadline; past it the group gets SIGTERM, then
 * SIGKILL. Always settles with a record: the worker's own, or a `timeout`
 * or `crash` record built from whatever trace the run left.
 */
export class WorkerRun {
  private readonly child: ChildProcess;
  private readonly startedAt = new Date().toISOString();
  private readonly began = Date.now();
  private stderr = '';
  private result: RunRecord | null = null;
  private phase = { phase: 'startup', seconds: STARTUP_S };
  private started = false;
  private workspace: string | null = null;
  private killedIn: { phase: string; seconds: number } | null = null;
  private timer: NodeJS.Timeout;
  private settled = false;

  constructor(
    private readonly job: EvalJob,
    workerPath: string,
    env: NodeJS.ProcessEnv,
    private readonly settle: (outcome: WorkerOutcome) => void,
  ) {
    this.child = fork(workerPath, [], { detached: true, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env, execArgv: [] });
    this.timer = setTimeout(() => this.kill(), STARTUP_S * 1000);
    this.child.stderr!.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-STDERR_TAIL);
    });
    this.child.on('message', (message: WorkerMessage) => this.onMessage(message));
    // 'close' comes after the IPC channel has delivered every message; 'exit' is the fallback.
    this.child.on('exit', (code, signal) => {
      setTimeout(() => this.finish(code, signal), CLOSE_WAIT_MS).unref();
    });
    this.child.on('close', (code, signal) => this.finish(code, signal));
    this.child.send({ type: 'job', job });
  }

  private onMessage(message: WorkerMessage): void {
    if (message.type === 'result') {
      this.result = message.record;
      return;
    }
    this.started = true;
    this.workspace = message.workspace;
    this.phase = { phase: message.phase, seconds: message.seconds };
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.kill(), (message.seconds + WORKER_KILL_GRACE_S) * 1000);
  }

  private finish(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    const started = this.started || this.result !== null || this.killedIn !== null;
    // A worker that died cannot clean up its temp workspace; do it here.
    if (!this.result && this.workspace && !this.job.keepWorkspace) rmSync(this.workspace, { recursive: true, force: true });
    this.settle({ record: this.result ?? this.failedRecord(code, signal), started });
  }

  private failedRecord(code: number | null, signal: NodeJS.Signals | null): RunRecord {
    const wallSeconds = (Date.now() - this.began) / 1000;
    if (this.killedIn) {
      const reason = `killed: no result after the ${this.killedIn.phase} phase's ${this.killedIn.seconds} s limit (+${WORKER_KILL_GRACE_S} s grace)`;
      return recordFor(this.job, this.startedAt, { status: 'timeout', reason, wallSeconds }, null);
    }
    const how = signal ? `signal ${signal}` : `exit code ${code}`;
    const detail = this.stderr.trim() ? `: ${this.stderr.trim().split('\n').slice(-3).join(' | ')}` : '';
    return recordFor(this.job, this.startedAt, { status: 'crash', reason: `worker died (${how})${detail}`, wallSeconds }, null);
  }

  private kill(): void {
    this.killedIn = this.phase;
    this.signalGroup('SIGTERM');
    setTimeout(() => this.signalGroup('SIGKILL'), WORKER_TERM_GRACE_MS).unref();
  }

  private signalGroup(signal: NodeJS.Signals): void {
    if (this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, signal);
    } catch {
      // already gone
    }
  }
}
