import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { createOutputCollector } from '../lib/output-collector.js';
import { COMMAND_SETTLE_MS, KILL_GRACE_MS, SUPERVISOR_CLOSE_MS } from './kill-timings.js';
import { createOutputDemux } from './output-demux.js';
import type { GroupRunResult } from './process-group.js';
import { shellScript } from './shell-scripts.js';
import { killTagged } from './tagged-processes.js';
import { firstOf, settledWithin } from './waiting.js';

const STDERR_KEPT = 2_000;
/**
 * How long after a command the next commands' shells are asked for. A model turn is far longer; tool calls of one
 * reply follow within this: the second takes the other shell started ahead, a third is forked rather than wait
 * behind a shell still starting.
 */
const SPARE_DELAY_MS = 10;

export interface SupervisorOptions {
  /** The argv that runs `inner` (bubblewrap's), or null to run the supervisor directly on the host. */
  wrap: ((inner: string[]) => string[]) | null;
  cwd: string;
  env: Record<string, string>;
  /** A job's leader ended (status: exit code or 128 + signal). */
  onJobEnd?: (tag: string, status: number) => void;
  /** The supervisor (and with it the sandbox) ended; `expected` after `close()`. */
  onExit?: (detail: string, expected: boolean) => void;
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
}

let sequence = 0;

/**
 * Starts the per-run supervisor (process/supervisor.sh) on the host or
 * inside the sandbox `wrap` builds, with stdin, stdout, stderr and a control
 * pipe. A command then costs two pipe writes and an exec when its shell was
 * started ahead (asked for shortly after the last command), else two forks and an exec. Its stdin is the harness's
 * lifeline: when the harness dies, however it dies, the supervisor sees EOF
 * and everything it started goes too.
 *
 * @example const supervisor = startSupervisor({ wrap: null, cwd: root, env }); await supervisor.runCommand('make', { timeoutMs, signal, outputCap: 6000 });
 */
export function startSupervisor(options: SupervisorOptions): Supervisor {
  const token = randomBytes(8).toString('hex');
  // --norc: its stdin is a socket, so bash would take it for a remote shell and read ~/.bashrc, when SHLVL is unset
  // (a harness started by systemd, cron or a container's CMD).
  const inner = ['bash', '--norc', '-c', shellScript('supervisor.sh'), 'rein-supervisor', token, String(KILL_GRACE_MS), options.wrap ? 'ns' : 'host'];
  const argv = options.wrap ? options.wrap(inner) : inner;
  const child = spawn(argv[0]!, argv.slice(1), { cwd: options.cwd, env: options.env, detached: true, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
  // spawn() with four pipes types stdio loosely; these are the four streams asked for.
  const [stdin, stdout, stderr, control] = child.stdio as unknown as [Writable, Readable, Readable, Readable];
  let alive = true;
  let closing = false;
  let stderrTail = '';
  let current: Running | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  let holds = 0;
  let spareTimer: NodeJS.Timeout | undefined;
  const jobStarts = new Map<string, (pgid: number) => void>();
  const resolvePgid = new Map<string, (pgid: number) => void>();
  const endedJobs = new Set<string>();
  const jobWaiters = new Set<() => void>();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  let markReady!: () => void;
  let failReady!: (error: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  ready.catch(() => undefined);

  // The harness must be able to exit while the sandbox idles: only work in flight keeps the event loop alive.
  const streams = [stdin, stdout, stderr, control] as unknown as Array<{ ref?(): void; unref?(): void }>;
  const hold = () => {
    if (holds++ === 0) {
      child.ref();
      for (const stream of streams) stream.ref?.();
    }
  };
  const release = () => {
    if (--holds === 0) {
      child.unref();
      for (const stream of streams) stream.unref?.();
    }
  };
  hold();

  stdin.on('error', () => undefined);
  stdout.on('data', (chunk: Buffer) => {
    if (current?.demux.push(chunk)) maybeSettle(current);
  });
  stderr.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString('utf8')).slice(-STDERR_KEPT);
  });
  let controlBuffer = '';
  control.on('data', (chunk: Buffer) => {
    controlBuffer += chunk.toString('utf8');
    for (let at = controlBuffer.indexOf('\n'); at !== -1; at = controlBuffer.indexOf('\n')) {
      onControl(controlBuffer.slice(0, at).split(' '));
      controlBuffer = controlBuffer.slice(at + 1);
    }
  });
  child.once('error', (error) => {
    stderrTail += `\n${error.message}`;
  });
  // 'exit', not 'close': on the host, a command can hold the pipes open after the supervisor has died.
  child.once('exit', (code, signal) => {
    alive = false;
    // In the sandbox its PID namespace ends with it; on the host, what it started may outlive a supervisor that was killed.
    if (!options.wrap) killTagged(`${token}-`);
    const detail = describeExit(code, signal, stderrTail);
    failReady(new Error(`the sandbox could not start: ${detail}`));
    if (current) current.settle();
    options.onExit?.(detail, closing);
  });

  function onControl([type, id = '', value = '']: string[]) {
    if (type === 'R') {
      markReady();
      release();
    } else if (type === 'S') {
      if (current?.id === id) resolvePgid.get(id)?.(Number(value));
      else jobStarts.get(id)?.(Number(value));
      jobStarts.delete(id);
    } else if (type === 'E' && current?.id === id) {
      current.status = Number(value);
      maybeSettle(current);
    } else if (type === 'X') {
      endedJobs.add(id);
      options.onJobEnd?.(id, Number(value));
      for (const wake of jobWaiters) wake();
    }
  }
  function maybeSettle(running: Running) {
    if (running.demux.ended && running.status !== null) running.settle();
  }

  function send(fields: string[]) {
    stdin.write(fields.map((field) => `${field}\0`).join(''));
  }

  async function runOne(command: string, options: CommandOptions): Promise<GroupRunResult> {
    const output = createOutputCollector(options.outputCap);
    if (options.signal.aborted) return { ending: 'aborted', exitCode: null, output };
    if (command.includes('\0')) return { ending: 'failed', exitCode: null, output, failure: 'the command contains a NUL byte' };
    try {
      await ready;
    } catch (error) {
      return { ending: 'failed', exitCode: null, output, failure: (error as Error).message };
    }
    if (!alive)
      return { ending: 'failed', exitCode: null, output, failure: `the sandbox has ended: ${describeExit(child.exitCode, child.signalCode, stderrTail)}` };
    clearTimeout(spareTimer);
    const id = `c${++sequence}`;
    const nonce = randomBytes(16).toString('hex');
    let settle!: () => void;
    const done = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const pgid = new Promise<number>((resolve) => resolvePgid.set(id, resolve));
    const running: Running = { id, demux: createOutputDemux(Buffer.from(`\0\0REIN-END-${nonce}\0\0`), output), status: null, settle };
    current = running;
    hold();
    try {
      send(['run', id, nonce, command]);
      const ending = await firstOf(done, options);
      if (ending !== 'done' && alive) {
        void pgid.then((group) => {
          if (alive) send(['stop', String(group)]);
        });
        if (!(await settledWithin(done, COMMAND_SETTLE_MS))) child.kill('SIGKILL');
      }
      if (!alive && running.status === null) {
        const failure = `the sandbox ended while the command ran: ${describeExit(child.exitCode, child.signalCode, stderrTail)}`;
        return ending === 'done' ? { ending: 'failed', exitCode: null, output, failure } : { ending, exitCode: null, output };
      }
      return ending === 'done' ? { ending: 'exited', exitCode: running.status, output } : { ending, exitCode: null, output };
    } finally {
      current = null;
      resolvePgid.delete(id);
      // The next command's shell starts while the model thinks, rather than in the next command's time. Only while no
      // command runs (the script relies on it): the next runOne clears this timer before it sends anything.
      spareTimer = setTimeout(() => {
        if (alive && !closing) send(['spare']);
      }, SPARE_DELAY_MS).unref();
      release();
    }
  }

  return {
    ready,
    get alive() {
      return alive;
    },
    runCommand(command, commandOptions) {
      const result = queue.then(() => runOne(command, commandOptions));
      queue = result.catch(() => undefined);
      return result;
    },
    async startJob(tag, log, command) {
      await ready;
      if (!alive) throw new Error('the sandbox has ended');
      if (command.includes('\0') || log.includes('\0')) throw new Error('the command contains a NUL byte');
      const started = new Promise<number>((resolve) => jobStarts.set(tag, resolve));
      send(['job', tag, log, command]);
      hold();
      try {
        return await Promise.race([
          started,
          exited.then(() => {
            throw new Error('the sandbox ended before the job started');
          }),
        ]);
      } finally {
        release();
      }
    },
    stopGroup(pgid) {
      if (alive) send(['stop', String(pgid)]);
    },
    async waitForJobs(tags, ms) {
      const allEnded = () => !alive || tags.every((tag) => endedJobs.has(tag));
      if (allEnded()) return;
      hold();
      let wake!: () => void;
      const done = new Promise<void>((resolve) => {
        wake = () => {
          if (allEnded()) resolve();
        };
      });
      jobWaiters.add(wake);
      try {
        await settledWithin(Promise.race([done, exited]), ms);
      } finally {
        jobWaiters.delete(wake);
        release();
      }
    },
    async close(waitMs = SUPERVISOR_CLOSE_MS) {
      closing = true;
      if (!alive) return;
      hold();
      // On the host the harness sweeps for leftovers itself when the supervisor has gone (killTagged), faster than bash can.
      if (!options.wrap) send(['quit']);
      stdin.end();
      if (!(await settledWithin(exited, waitMs))) {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* already gone */
        }
        await settledWithin(exited, waitMs);
      }
      release();
    },
  };
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
