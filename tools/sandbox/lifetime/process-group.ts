import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { constants } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { createOutputCollector, type OutputCollector } from '../../../lib/output-collector.js';
import { KILL_GRACE_MS, KILL_POLL_MS, OUTPUT_DRAIN_MS } from './kill-timings.js';
import { hasExited, listPids, readProcStat } from './proc.js';

interface GroupRunOptions {
  argv: readonly string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  outputCap: number;
}

export interface GroupRunResult {
  /** `exited` includes death by signal; `failed` means it never started. */
  ending: 'exited' | 'timeout' | 'aborted' | 'failed';
  /** Exit status, or 128 + signal number as a shell reports it; null unless exited. */
  exitCode: number | null;
  /** Head and tail of stdout and stderr in arrival order. */
  output: OutputCollector;
  failure?: string;
  /** The sandbox's process limit refused a fork while the command ran (known where a cgroup holds the limit). */
  processLimitReached?: boolean;
}

type Ending = { type: 'exit'; code: number | null; signal: NodeJS.Signals | null } | { type: 'timeout' | 'aborted' } | { type: 'error'; error: Error };

/**
 * Runs argv as the leader of a new process group with stdin closed, collects
 * its output into a bounded collector, and always ends with the whole group
 * dead: on timeout or abort (SIGTERM, then SIGKILL after a grace), and also
 * after a normal exit, so background jobs (`sleep 100 &`) do not outlive the
 * command. A process that left the group with `setsid` is the one escape
 * unsandboxed; under bubblewrap the PID namespace takes it down too.
 *
 * @example await runInProcessGroup({ argv: ['bash', '-c', 'make'], cwd, env, timeoutMs: 120_000, signal, outputCap: 6000 })
 */
export async function runInProcessGroup(options: GroupRunOptions): Promise<GroupRunResult> {
  const output = createOutputCollector(options.outputCap);
  if (options.signal.aborted) return { ending: 'aborted', exitCode: null, output };
  const child = spawn(options.argv[0]!, options.argv.slice(1), {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const closed = Promise.all([streamClosed(child.stdout), streamClosed(child.stderr)]);
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
  const exited = waitForExit(child);
  const ending = await firstEnding(exited, options);
  if (ending.type !== 'error' && child.pid !== undefined) await killGroup(child.pid, exited);
  await waitAtMost(closed, OUTPUT_DRAIN_MS);
  child.stdout.destroy();
  child.stderr.destroy();
  if (ending.type === 'error') return { ending: 'failed', exitCode: null, output, failure: ending.error.message };
  if (ending.type !== 'exit') return { ending: ending.type, exitCode: null, output };
  return { ending: 'exited', exitCode: ending.code ?? 128 + (constants.signals[ending.signal!] ?? 0), output };
}

function waitForExit(child: ChildProcess): Promise<Ending> {
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve({ type: 'exit', code, signal }));
    child.once('error', (error) => resolve({ type: 'error', error }));
  });
}

async function firstEnding(exited: Promise<Ending>, options: GroupRunOptions): Promise<Ending> {
  const timer = new AbortController();
  const onAbort = new Promise<Ending>((resolve) => {
    options.signal.addEventListener('abort', () => resolve({ type: 'aborted' }), { once: true, signal: timer.signal });
  });
  // Aborting `timer` afterwards rejects this sleep; the race has settled by then.
  const timedOut = sleep(options.timeoutMs, { type: 'timeout' } as Ending, { signal: timer.signal });
  try {
    return await Promise.race([exited, onAbort, timedOut]);
  } finally {
    timer.abort();
  }
}

/** SIGTERM the group, wait for it to empty, SIGKILL whatever is left. */
async function killGroup(pgid: number, exited: Promise<Ending>): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) return;
  const deadline = Date.now() + KILL_GRACE_MS;
  while (Date.now() < deadline && groupAlive(pgid)) await sleep(KILL_POLL_MS);
  signalGroup(pgid, 'SIGKILL');
  // The leader must be reaped before the exit code is read.
  await waitAtMost(exited, KILL_GRACE_MS);
}

/** Sends a signal to a whole process group; false when the group no longer exists. */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether any member of the group is still running. `kill(-pgid, 0)` also
 * succeeds for zombies, which linger where PID 1 is slow to reap orphans, so
 * on Linux the members' states are read from /proc.
 */
function groupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  const pids = listPids();
  // No /proc to read: the group answered the signal, so take it as alive.
  if (pids.length === 0) return true;
  return pids.some((pid) => {
    const stat = readProcStat(pid);
    return stat !== null && stat.pgrp === pgid && !hasExited(stat);
  });
}

/** Waits for `promise` at most `ms`, without leaving the timer behind. */
async function waitAtMost(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function streamClosed(stream: NodeJS.ReadableStream | null): Promise<void> {
  return stream === null
    ? Promise.resolve()
    : once(stream, 'close').then(
        () => undefined,
        () => undefined,
      );
}
