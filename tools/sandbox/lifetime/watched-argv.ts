import { buildSandboxArgv } from '../launch/bubblewrap.js';
import { limitedArgv, type SandboxLimits } from '../limits/sandbox-limits.js';
import type { VisibilityPlan } from '../plan/visibility.js';
import { shellScript } from '../shell-scripts.js';

/** Where a one-off process runs: in bubblewrap with a visibility plan, or (null) on the host. */
type SandboxPlacement = { bwrap: string; plan: VisibilityPlan } | null;

/**
 * A harness killed with SIGKILL cannot clean up after itself, so every process rein starts on its own carries a
 * watchdog (tools/sandbox/launch/watchdog.sh) that kills its process group once the harness is gone. After a normal end the
 * harness kills the group, watchdog included.
 */
export function withHarnessWatchdog(argv: readonly string[]): string[] {
  // --norc: started with a socket for stdin and no SHLVL, bash would take itself for a remote shell and read ~/.bashrc
  // (whose `pyenv init` alone can wait a minute on a stale lock).
  return ['bash', '--norc', '-c', shellScript('watchdog.sh'), 'bash', String(process.pid), ...argv];
}

/**
 * The argv of a process started outside the run's supervisor (a command run on its own, a stdio MCP server, a
 * hook): `argv` under the run's limits (the process limit only in a sandbox: on the host RLIMIT_NPROC would count
 * the user's other processes), in bubblewrap when `sandbox` is given, the harness watchdog outermost.
 *
 * @example spawn(...watchedArgv(['sh', '-c', 'make'], sandboxLimits(), { bwrap: '/usr/bin/bwrap', plan }))
 */
export function watchedArgv(argv: readonly string[], limits: SandboxLimits, sandbox: SandboxPlacement): string[] {
  const inner = limitedArgv(limits, argv, sandbox !== null);
  return withHarnessWatchdog(sandbox ? buildSandboxArgv(sandbox.bwrap, sandbox.plan, inner) : inner);
}
