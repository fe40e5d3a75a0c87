import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCommandEnv, createRunSandbox, planVisibility, type RunSandbox, resolveSandbox, runColdCommand } from 'rein/sandbox';
import type { CommandPolicy } from 'rein/tools';

/** One way of running a command: `run` resolves to the milliseconds the timed call took. */
interface Path {
  name: string;
  run(command: string): Promise<number>;
  /** Idle time after each call, untimed: the model's turn, in which the warm sandbox starts the next command's shell. */
  turnGapMs?: number;
}

/**
 * Between two commands of a run the harness waits on the model, for hundreds of milliseconds
 * at least; the bench leaves this much, which is enough for the next shell to be started.
 */
const MODEL_TURN_MS = 40;

async function timed(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await call();
  return performance.now() - started;
}

export interface CommandCost {
  path: string;
  command: string;
  medianMs: number;
  p90Ms: number;
  /** Median minus the bare `sh -c` median of the same command, measured in the same rounds. */
  overMs: number;
  /** Median minus the bare `bash -c` median: bash is the shell every rein command runs in. */
  overBashMs: number;
}

interface JobCosts {
  /** From the `job` request to the supervisor's report that the job's group exists. */
  startMs: number;
  /** From the stop request to the report that the group (SIGTERM, no grace needed) is gone. */
  stopMs: number;
  /** Ending a run with three jobs running, one of them ignoring SIGTERM (so the SIGKILL grace is in it). */
  disposeMs: number;
  /** A job's processes left after the run ended (must be 0). */
  leftAfterDispose: number;
}

const SIGNAL = new AbortController().signal;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!;
}

/**
 * `sh -c` from Node with piped output, as a plain harness runs a tool command
 * (the seed's subprocess.run); with `bash`, the same in the shell rein runs
 * commands in, so the difference between the two is the shells' own start-up.
 */
function bare(root: string, env: Record<string, string>, shell: 'sh' | 'bash'): Path {
  return {
    name: `bare ${shell} -c (no sandbox, no process group)`,
    run: (command) =>
      timed(
        () =>
          new Promise<void>((resolve, reject) => {
            const child = spawn(shell, ['-c', command], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
            child.stdout.resume();
            child.stderr.resume();
            child.once('error', reject);
            child.once('close', () => resolve());
          }),
      ),
  };
}

function cold(root: string, policy: CommandPolicy, name: string): Path {
  // The plan is made once, as a caller keeping it would: the comparison is about spawning, not planning.
  const plan = policy.sandbox === 'none' ? undefined : planVisibility({ root, policy });
  return {
    name,
    run: (command) => timed(() => runColdCommand(command, { root, policy, plan, timeoutMs: 60_000, signal: SIGNAL, outputCap: 6000 })),
  };
}

function warm(sandbox: RunSandbox, name: string): Path {
  return { name, run: (command) => timed(() => runWarm(sandbox, command)), turnGapMs: MODEL_TURN_MS };
}

/** Commands with no model turn between them (tool calls of one reply): the `position`-th is timed. */
function inARow(sandbox: RunSandbox, name: string, position: number): Path {
  return {
    name,
    run: async (command) => {
      for (let call = 1; call < position; call++) await runWarm(sandbox, 'true');
      return timed(() => runWarm(sandbox, command));
    },
    turnGapMs: MODEL_TURN_MS,
  };
}

function runWarm(sandbox: RunSandbox, command: string) {
  return sandbox.runCommand(command, { timeoutMs: 60_000, signal: SIGNAL, outputCap: 6000 });
}

/**
 * Per-command cost of each way of running a command, measured side by side:
 * the paths take turns within each round (rotating who goes first), so a
 * busy moment of a shared machine falls on all of them.
 *
 * @example await measureCommandOverhead(40)
 */
export async function measureCommandOverhead(rounds: number): Promise<{ rows: CommandCost[]; startMs: Record<string, number> }> {
  const root = mkdtempSync(join(tmpdir(), 'rein-bench-sandbox-'));
  writeFileSync(join(root, 'stats.py'), Array.from({ length: 40 }, (_, i) => `def f${i}(values):\n    return sum(values) / len(values)\n`).join(''));
  const bwrap = resolveSandbox({ sandbox: 'auto', network: false }).kind === 'bwrap';
  const policy = (sandbox: CommandPolicy['sandbox']): CommandPolicy => ({ deny: [], sandbox, network: false, envAllow: [], timeoutSeconds: 60 });
  // Per run, once: the visibility plan, the sandbox and its supervisor, up to the end of a first `true`.
  const startMs: Record<string, number> = {};
  const timedStart = async (name: string, make: () => RunSandbox) => {
    const started = performance.now();
    const sandbox = make();
    await sandbox.runCommand('true', { timeoutMs: 60_000, signal: SIGNAL, outputCap: 6000 });
    startMs[name] = performance.now() - started;
    return sandbox;
  };
  const sandboxes = [
    ...(bwrap ? [await timedStart('warm sandbox, bubblewrap', () => createRunSandbox({ root, policy: policy('bwrap') }))] : []),
    await timedStart('warm, unsandboxed', () => createRunSandbox({ root, policy: policy('none') })),
  ];
  const paths: Path[] = [
    bare(root, buildCommandEnv(process.env), 'sh'),
    bare(root, buildCommandEnv(process.env), 'bash'),
    ...(bwrap
      ? [
          cold(root, policy('bwrap'), 'spawn per command, bubblewrap (before)'),
          warm(sandboxes[0]!, 'warm sandbox, bubblewrap'),
          inARow(sandboxes[0]!, 'warm sandbox, bubblewrap, second in a row', 2),
        ]
      : []),
    cold(root, policy('none'), 'spawn per command, unsandboxed (before)'),
    warm(sandboxes.at(-1)!, 'warm, unsandboxed'),
  ];
  const commands = ['true', 'head -n 7 stats.py', 'grep -n "def f1" stats.py'];
  const times = new Map<string, number[]>();
  try {
    for (let round = 0; round < rounds + 3; round++) {
      for (const command of commands) {
        for (let turn = 0; turn < paths.length; turn++) {
          const path = paths[(turn + round) % paths.length]!;
          const ms = await path.run(command);
          // The first rounds warm the caches and JIT; they are not counted.
          if (round >= 3) times.set(`${path.name}\0${command}`, [...(times.get(`${path.name}\0${command}`) ?? []), ms]);
          if (path.turnGapMs) await new Promise((resolve) => setTimeout(resolve, path.turnGapMs));
        }
      }
    }
  } finally {
    await Promise.all(sandboxes.map((sandbox) => sandbox.dispose()));
    rmSync(root, { recursive: true, force: true });
  }
  const rows = commands.flatMap((command) => {
    const bareMedian = median(times.get(`${paths[0]!.name}\0${command}`)!);
    const bashMedian = median(times.get(`${paths[1]!.name}\0${command}`)!);
    return paths.map((path) => {
      const values = times.get(`${path.name}\0${command}`)!;
      return {
        path: path.name,
        command,
        medianMs: median(values),
        p90Ms: percentile(values, 0.9),
        overMs: median(values) - bareMedian,
        overBashMs: median(values) - bashMedian,
      };
    });
  });
  return { rows, startMs };
}

/**
 * What background jobs cost: starting one, stopping one, and ending a run
 * that has three running (one ignores SIGTERM, so the SIGKILL grace counts).
 *
 * @example await measureJobs()
 */
export async function measureJobs(): Promise<JobCosts> {
  const root = mkdtempSync(join(tmpdir(), 'rein-bench-jobs-'));
  const kind = resolveSandbox({ sandbox: 'auto', network: false }).kind === 'bwrap' ? 'bwrap' : 'none';
  const sandbox = createRunSandbox({ root, policy: { deny: [], sandbox: kind, network: false, envAllow: [], timeoutSeconds: 60 } });
  const marker = `301.${process.pid}`;
  try {
    await sandbox.runCommand('true', { timeoutMs: 60_000, signal: SIGNAL, outputCap: 6000 });
    let started = performance.now();
    const job = await sandbox.startJob(`sleep ${marker}`);
    const startMs = performance.now() - started;
    started = performance.now();
    await sandbox.stopJob(job.id);
    const stopMs = performance.now() - started;
    for (const command of [`sleep ${marker}`, `trap '' TERM; sleep ${marker}`, `sleep ${marker} & sleep ${marker}`]) await sandbox.startJob(command);
    started = performance.now();
    await sandbox.dispose();
    const disposeMs = performance.now() - started;
    const left = await countProcesses(marker);
    return { startMs, stopMs, disposeMs, leftAfterDispose: left };
  } finally {
    await sandbox.dispose();
    rmSync(root, { recursive: true, force: true });
  }
}

async function countProcesses(marker: string): Promise<number> {
  const { readdirSync, readFileSync } = await import('node:fs');
  return readdirSync('/proc').filter((pid) => {
    try {
      return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
    } catch {
      return false;
    }
  }).length;
}
