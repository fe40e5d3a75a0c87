import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { createOutputCollector } from '../../../lib/output-collector.js';
import { COMMAND_SETTLE_MS, KILL_GRACE_MS, SUPERVISOR_CLOSE_MS } from '../lifetime/kill-timings.js';
import type { GroupRunResult } from '../lifetime/process-group.js';
import { killTagged } from '../lifetime/tagged-processes.js';
import { firstOf, settledWithin } from '../lifetime/waiting.js';
import { createPidsCgroup, type PidsCgroup } from '../limits/pids-cgroup.js';
import type { SandboxLimits } from '../limits/sandbox-limits.js';
import { shellScript } from '../shell-scripts.js';
import { createOutputDemux } from './output-demux.js';
import { createReportReader, encodeRequest, type SupervisorReport, type SupervisorRequest } from './protocol.js';

const STDERR_KEPT = 2_000;

interface SupervisorOptions {
  /** The argv that runs `inner` (bubblewrap's), or null to run the supervisor directly on the host. */
  wrap: ((inner: string[]) => string[]) | null;
  cwd: string;
  env: Record<string, string>;
  /** A job's leader ended (status: exit code or 128 + signal). */
  onJobEnd?: (tag: string, status: number) => void;
  /** The supervisor (and with it the sandbox) ended; `expected` after `close()`. */
  onExit?: (detail: string, expected: boolean) => void;
  /**
   * Memory a process may allocate and processes the sandbox may hold. Memory is an rlimit the supervisor sets for
   * everything it starts; processes a pids cgroup where rein can make one (see tools/sandbox/limits/pids-cgroup.ts), and in the
   * sandbox also an rlimit, which binds every user but root.
   */
  limits?: SandboxLimits;
  /** Jobs' logs are cut back to `cutNote` as they are written, whenever one would pass `maxBytes`. */
  jobLogs?: { maxBytes: number; cutNote: string };
}

export interface CommandOptions {
  timeoutMs: number;
  signal: AbortSignal;
  outputCap: number;
}

/** A started supervisor; see `startSupervisor`. */
export interface Supervisor {
  readonly ready: Promise<void>;
  readonly alive: boolean;
  /** Runs one command in its own process group; calls are queued, one at a time. */
  runCommand(command: string, options: CommandOptions): Promise<GroupRunResult>;
  /** Starts a background job whose output is appended to `log`; resolves to its process group. */
  startJob(tag: string, log: string, command: string): Promise<number>;
  /** SIGTERM a group, SIGKILL it after the grace. */
  stopGroup(pgid: number): void;
  /** Resolves once every one of these jobs has been reported ended (or the supervisor is gone), at most `ms`. */
  waitForJobs(tags: readonly string[], ms: number): Promise<void>;
  /** Ends the supervisor (and the sandbox with everything in it); waits for it at most `waitMs`. */
  close(waitMs?: number): Promise<void>;
}

interface Running {
  id: string;
  demux: ReturnType<typeof createOutputDemux>;
  status: number | null;
  settle: () => void;
  /** The command's process group, once its start is reported. */
  pgid?: number;
}

let sequence = 0;

/**
 * Starts the per-run supervisor (tools/sandbox/supervisor/supervisor.sh) on the host or
 * inside the sandbox `wrap` builds, with stdin, stdout, stderr and a control
 * pipe. A command then costs a pipe write, a fork of the small supervisor shell and an exec. Its stdin is the harness's
 * lifeline: when the harness dies, however it dies, the supervisor sees EOF
 * and everything it started goes too.
 *
 * @example const supervisor = startSupervisor({ wrap: null, cwd: root, env }); await supervisor.runCommand('make', { timeoutMs, signal, outputCap: 6000 });
 */
export function startSupervisor(options: SupervisorOptions): Supervisor {
  return new SupervisorProcess(options);
}

/** One supervisor process and the harness's side of its protocol (tools/sandbox/supervisor/protocol.ts). */
class SupervisorProcess implements Supervisor {
  readonly ready: Promise<void>;
  private readonly options: SupervisorOptions;
  private readonly token = randomBytes(8).toString('hex');
  private readonly child: ChildProcess;
  private readonly cgroup: PidsCgroup | null;
  private readonly stdin: Writable;
  private readonly streams: Array<{ ref?(): void; unref?(): void }>;
  private readonly exited: Promise<void>;
  private isAlive = true;
  private closing = false;
  private stderrTail = '';
  private current: Running | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private holds = 0;
  private readonly jobStarts = new Map<string, (pgid: number) => void>();
  private readonly resolvePgid = new Map<string, (pgid: number) => void>();
  private readonly endedJobs = new Set<string>();
  private readonly jobWaiters = new Set<() => void>();
  private markReady!: () => void;
  private failReady!: (error: Error) => void;

  constructor(options: SupervisorOptions) {
    this.options = options;
    // --norc: its stdin is a socket, so bash would take it for a remote shell and read ~/.bashrc, when SHLVL is unset
    // (a harness started by systemd, cron or a container's CMD).
    const { limits } = options;
    const inner = [
      'bash',
      '--norc',
      '-c',
      shellScript('supervisor.sh'),
      'rein-supervisor',
      this.token,
      String(KILL_GRACE_MS),
      options.wrap ? 'ns' : 'host',
      String(limits ? Math.floor(limits.memoryBytes / 1024) : 0),
      String(limits?.processes ?? 0),
      String(options.jobLogs?.maxBytes ?? 0),
      options.jobLogs?.cutNote ?? '',
    ];
    this.cgroup = limits ? createPidsCgroup(limits.processes) : null;
    const wrapped = options.wrap ? options.wrap(inner) : inner;
    const argv = this.cgroup ? this.cgroup.wrap(wrapped) : wrapped;
    this.child = spawn(argv[0]!, argv.slice(1), { cwd: options.cwd, env: options.env, detached: true, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
    // spawn() with four pipes types stdio loosely; these are the four streams asked for.
    const [stdin, stdout, stderr, control] = this.child.stdio as unknown as [Writable, Readable, Readable, Readable];
    this.stdin = stdin;
    this.streams = [stdin, stdout, stderr, control] as unknown as Array<{ ref?(): void; unref?(): void }>;
    this.exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.ready = new Promise<void>((resolve, reject) => {
      this.markReady = resolve;
      this.failReady = reject;
    });
    this.ready.catch(() => undefined);
    this.hold();

    stdin.on('error', () => undefined);
    stdout.on('data', (chunk: Buffer) => {
      if (this.current?.demux.push(chunk)) this.maybeSettle(this.current);
    });
    stderr.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_KEPT);
    });
    control.on(
      'data',
      createReportReader(
        (report) => this.onReport(report),
        (error) => this.fail(error.message),
      ),
    );
    this.child.once('error', (error) => {
      this.stderrTail += `\n${error.message}`;
    });
    // 'exit', not 'close': on the host, a command can hold the pipes open after the supervisor has died.
    this.child.once('exit', (code, signal) => this.onExit(code, signal));
  }

  get alive(): boolean {
    return this.isAlive;
  }

  /** Whether the sandbox's process count is held by a cgroup (else only by the rlimit, which root escapes). */
  get processLimitHeld(): boolean {
    return this.cgroup?.holdsProcesses() ?? false;
  }

  runCommand(command: string, commandOptions: CommandOptions): Promise<GroupRunResult> {
    const result = this.queue.then(() => this.runCounted(command, commandOptions));
    this.queue = result.catch(() => undefined);
    return result;
  }

  async startJob(tag: string, log: string, command: string): Promise<number> {
    await this.ready;
    if (!this.isAlive) throw new Error('the sandbox has ended');
    if (command.includes('\0') || log.includes('\0')) throw new Error('the command contains a NUL byte');
    const started = new Promise<number>((resolve) => this.jobStarts.set(tag, resolve));
    this.send({ type: 'job', id: tag, log, command });
    this.hold();
    try {
      return await Promise.race([
        started,
        this.exited.then(() => {
          throw new Error('the sandbox ended before the job started');
        }),
      ]);
    } finally {
      this.release();
    }
  }

  stopGroup(pgid: number): void {
    if (this.isAlive) this.send({ type: 'stop', pgid });
  }

  async waitForJobs(tags: readonly string[], ms: number): Promise<void> {
    const allEnded = () => !this.isAlive || tags.every((tag) => this.endedJobs.has(tag));
    if (allEnded()) return;
    this.hold();
    let wake!: () => void;
    const done = new Promise<void>((resolve) => {
      wake = () => {
        if (allEnded()) resolve();
      };
    });
    this.jobWaiters.add(wake);
    try {
      await settledWithin(Promise.race([done, this.exited]), ms);
    } finally {
      this.jobWaiters.delete(wake);
      this.release();
    }
  }

  async close(waitMs = SUPERVISOR_CLOSE_MS): Promise<void> {
    this.closing = true;
    if (!this.isAlive) return;
    this.hold();
    // On the host the harness sweeps for leftovers itself when the supervisor has gone (killTagged), faster than bash can.
    if (!this.options.wrap) this.send({ type: 'quit' });
    this.stdin.end();
    if (!(await settledWithin(this.exited, waitMs))) {
      this.killGroup();
      await settledWithin(this.exited, waitMs);
    }
    this.release();
  }

  // The harness must be able to exit while the sandbox idles: only work in flight keeps the event loop alive.
  private hold(): void {
    if (this.holds++ === 0) {
      this.child.ref();
      for (const stream of this.streams) stream.ref?.();
    }
  }

  private release(): void {
    if (--this.holds === 0) {
      this.child.unref();
      for (const stream of this.streams) stream.unref?.();
    }
  }

  private send(request: SupervisorRequest): void {
    this.stdin.write(encodeRequest(request));
  }

  private onReport(report: SupervisorReport): void {
    switch (report.type) {
      case 'ready':
        this.markReady();
        this.release();
        return;
      case 'started':
        if (this.current?.id === report.id) {
          this.current.pgid = report.pgid;
          this.resolvePgid.get(report.id)?.(report.pgid);
        } else this.jobStarts.get(report.id)?.(report.pgid);
        this.jobStarts.delete(report.id);
        return;
      case 'commandEnded':
        // A late report of a command already given up on (timed out, aborted) belongs to nobody now.
        if (this.current?.id !== report.id) return;
        this.current.status = report.status;
        this.maybeSettle(this.current);
        return;
      case 'jobEnded':
        this.endedJobs.add(report.id);
        this.options.onJobEnd?.(report.id, report.status);
        for (const wake of this.jobWaiters) wake();
        return;
      case 'problem':
        this.fail(`the supervisor could not understand a request: ${report.text.slice(0, 200)}`);
        return;
    }
  }

  /** A supervisor that broke its protocol cannot be trusted with the next command: it is ended, and the next command gets a new one. */
  private fail(why: string): void {
    this.stderrTail += `\n${why}`;
    this.killGroup();
  }

  private killGroup(): void {
    try {
      process.kill(-this.child.pid!, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.isAlive = false;
    this.cgroup?.remove();
    // In the sandbox its PID namespace ends with it; on the host, what it started may outlive a supervisor that was killed.
    if (!this.options.wrap) killTagged(`${this.token}-`);
    const detail = describeExit(code, signal, this.stderrTail);
    this.failReady(new Error(`the sandbox could not start: ${detail}`));
    if (this.current) this.current.settle();
    this.options.onExit?.(detail, this.closing);
  }

  private maybeSettle(running: Running): void {
    if (running.demux.ended && running.status !== null) running.settle();
  }

  /** A command, and whether the process limit refused a fork while it ran (in it, or in a job beside it). */
  private async runCounted(command: string, options: CommandOptions): Promise<GroupRunResult> {
    const refusedBefore = this.cgroup?.refusals() ?? 0;
    const result = await this.runOne(command, options);
    return (this.cgroup?.refusals() ?? 0) > refusedBefore ? { ...result, processLimitReached: true } : result;
  }

  private async runOne(command: string, options: CommandOptions): Promise<GroupRunResult> {
    const output = createOutputCollector(options.outputCap);
    if (options.signal.aborted) return { ending: 'aborted', exitCode: null, output };
    if (command.includes('\0')) return { ending: 'failed', exitCode: null, output, failure: 'the command contains a NUL byte' };
    try {
      await this.ready;
    } catch (error) {
      return { ending: 'failed', exitCode: null, output, failure: (error as Error).message };
    }
    if (!this.isAlive) return { ending: 'failed', exitCode: null, output, failure: `the sandbox has ended: ${this.exitDetail()}` };
    const id = `c${++sequence}`;
    const nonce = randomBytes(16).toString('hex');
    let settle!: () => void;
    const done = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const pgid = new Promise<number>((resolve) => this.resolvePgid.set(id, resolve));
    const running: Running = { id, demux: createOutputDemux(Buffer.from(`\0\0REIN-END-${nonce}\0\0`), output), status: null, settle };
    this.current = running;
    this.hold();
    try {
      this.send({ type: 'run', id, nonce, command });
      const ending = await firstOf(done, options);
      if (ending !== 'done' && this.isAlive) {
        void pgid.then((group) => {
          if (this.isAlive) this.send({ type: 'stop', pgid: running.pgid ?? group });
        });
        if (!(await settledWithin(done, COMMAND_SETTLE_MS))) this.child.kill('SIGKILL');
      }
      if (!this.isAlive && running.status === null) {
        const failure = `the sandbox ended while the command ran: ${this.exitDetail()}`;
        return ending === 'done' ? { ending: 'failed', exitCode: null, output, failure } : { ending, exitCode: null, output };
      }
      return ending === 'done' ? { ending: 'exited', exitCode: running.status, output } : { ending, exitCode: null, output };
    } finally {
      this.current = null;
      this.resolvePgid.delete(id);
      this.release();
    }
  }

  private exitDetail(): string {
    return describeExit(this.child.exitCode, this.child.signalCode, this.stderrTail);
  }
}

function describeExit(code: number | null, signal: NodeJS.Signals | null, stderr: string): string {
  const how = signal ? `killed by ${signal}` : `exit ${code}`;
  const said = stderr
    .trim()
    .split('\n')
    .filter((line) => !/^environment: line \d+: +\d+ (Killed|Terminated)/.test(line))
    .slice(-3)
    .join(' / ');
  return said ? `${how}: ${said}` : how;
}
