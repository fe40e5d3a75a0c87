import type { CommandPolicy } from '../../../rules/command-policy.js';
import { type GroupRunResult, runInProcessGroup } from '../lifetime/process-group.js';
import { watchedArgv } from '../lifetime/watched-argv.js';
import { sandboxLimits } from '../limits/sandbox-limits.js';
import { buildCommandEnv } from '../plan/environment.js';
import { planVisibility, type VisibilityPlan } from '../plan/visibility.js';
import { resolveSandbox } from './bubblewrap.js';

/**
 * `bash -c` with the command's stderr merged into stdout in the order it was
 * written (one pipe, not two interleaved ones). The outer shell only sets up
 * the redirection and is replaced by the inner one.
 */
const MERGE_STDERR = ['bash', '--norc', '-c', 'exec bash --norc -c "$1" 2>&1', 'bash'];

interface ColdCommandOptions {
  root: string;
  policy: CommandPolicy;
  protectedFiles?: readonly string[];
  timeoutMs: number;
  signal: AbortSignal;
  outputCap: number;
  /** A visibility plan made earlier (the benchmark reuses one); made for this command when absent. */
  plan?: VisibilityPlan;
}

/**
 * The spawn-per-command path: a new process group (and, sandboxed, a new
 * bubblewrap sandbox with its own visibility plan) for every command, with
 * a watchdog that kills it if the harness dies. `run` uses it when no run
 * sandbox is in its context (a tool called on its own); the benchmark
 * compares the warm sandbox against it.
 *
 * @example await runColdCommand('pytest -q', { root, policy, timeoutMs: 120_000, signal, outputCap: 6000 })
 */
export async function runColdCommand(command: string, options: ColdCommandOptions): Promise<GroupRunResult> {
  const argv = coldArgv(command, options);
  return runInProcessGroup({
    argv,
    cwd: options.root,
    env: buildCommandEnv(process.env, options.policy.envAllow),
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    outputCap: options.outputCap,
  });
}

/** The argv `runColdCommand` spawns: the watchdog, bubblewrap when the policy and machine allow, and the command. */
function coldArgv(command: string, options: Pick<ColdCommandOptions, 'root' | 'policy' | 'protectedFiles' | 'plan'>): string[] {
  const sandbox = resolveSandbox(options.policy);
  const limits = sandboxLimits(options.policy.limits);
  if (sandbox.kind !== 'bwrap') return watchedArgv([...MERGE_STDERR, command], limits, null);
  const plan = options.plan ?? planVisibility({ root: options.root, policy: options.policy, protectedFiles: options.protectedFiles });
  return watchedArgv([...MERGE_STDERR, command], limits, { bwrap: sandbox.bwrap, plan });
}
