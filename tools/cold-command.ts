import { buildCommandEnv } from './environment.js';
import { type GroupRunResult, runInProcessGroup } from './process-group.js';
import { buildSandboxArgv, resolveSandbox } from './sandbox.js';
import type { CommandPolicy } from './types.js';
import { planVisibility, type VisibilityPlan } from './visibility.js';

/**
 * `bash -c` with the command's stderr merged into stdout in the order it was
 * written (one pipe, not two interleaved ones). The outer shell only sets up
 * the redirection and is replaced by the inner one.
 */
const MERGE_STDERR = ['bash', '-c', 'exec bash -c "$1" 2>&1', 'bash'];

/**
 * The watchdog, in bash. It runs in the command's process group, detached
 * from the command by a double fork (so a command that waits for all its
 * children does not wait for it). Once a second it reads the harness's
 * /proc entry: gone, a zombie, or a new process under the same pid (another
 * start time) means the harness is dead, and the command, its descendants
 * and its group are killed. Without /proc it falls back to `kill -0`.
 */
const WATCHDOG = [
  'h=$1; shift',
  '( (',
  '  if read -r s < /proc/$h/stat; then',
  '    s=${s##*) }; set -- $s; t0=${20}',
  '    alive() { local s; read -r s < /proc/$h/stat || return 1; s=${s##*) }; set -- $s; [ "$1" != Z ] && [ "${20}" = "$t0" ]; }',
  '  else',
  '    alive() { kill -0 "$h"; }',
  '  fi',
  '  while alive; do sleep 1 || exit; done',
  // The command stopped first, so it cannot start more; then it and every descendant by parent pid (a process
  // that left the group, bwrap's inner half before it has tied itself to its parent), then the group.
  '  kill -STOP $$',
  // A stop lands when the process leaves the kernel: a fork under way finishes first, so wait until it has.
  '  for i in 1 2 3 4 5 6 7 8 9 10; do read -r st < /proc/$$/stat || break; r=${st##*) }; [ "${r%% *}" = T ] && break; sleep 0.01; done',
  '  pids=$$; grew=1',
  '  while [ $grew = 1 ]; do grew=0',
  '    for f in /proc/[0-9]*/stat; do',
  '      read -r st < "$f" || continue; p=${f#/proc/}; p=${p%/stat}; r=${st##*) }; set -- $r',
  '      case " $pids " in *" $p "*) continue;; esac',
  '      case " $pids " in *" $2 "*) pids="$pids $p"; grew=1;; esac',
  '    done',
  '  done',
  '  kill -KILL $pids',
  '  kill -KILL 0',
  ') </dev/null >/dev/null 2>&1 & )',
  'exec "$@"',
].join('\n');

/**
 * A harness killed with SIGKILL cannot clean up after itself, so every
 * command carries a watchdog that kills its process group once the harness
 * is gone. After a normal end the harness kills the group, watchdog included.
 */
function withHarnessWatchdog(argv: readonly string[]): string[] {
  return ['bash', '-c', WATCHDOG, 'bash', String(process.pid), ...argv];
}

export interface ColdCommandOptions {
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
export function coldArgv(command: string, options: Pick<ColdCommandOptions, 'root' | 'policy' | 'protectedFiles' | 'plan'>): string[] {
  const sandbox = resolveSandbox(options.policy);
  const inner = [...MERGE_STDERR, command];
  if (sandbox.kind !== 'bwrap') return withHarnessWatchdog(inner);
  const plan = options.plan ?? planVisibility({ root: options.root, policy: options.policy, protectedFiles: options.protectedFiles });
  return withHarnessWatchdog(buildSandboxArgv(sandbox.bwrap, plan, inner));
}
