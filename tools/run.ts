import { z } from 'zod';
import { findDenyRule } from './deny-list.js';
import { buildCommandEnv } from './environment.js';
import { runInProcessGroup, type GroupRunResult } from './process-group.js';
import { buildSandboxArgv, resolveSandbox } from './sandbox.js';
import type { Tool, ToolContext, ToolEffect, ToolOutcome } from './types.js';

const parameters = z
  .object({
    command: z.string().describe('A bash command, run in the repository root. Output is head+tail truncated.'),
  })
  .strict();

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
 * is gone. Unsandboxed nothing else would; in bubblewrap it also covers the
 * moment before bwrap has tied itself to its parent (--die-with-parent does
 * nothing if the parent died first), and killing bwrap takes the sandbox
 * down. After a normal end the harness kills the group, watchdog included.
 */
function withHarnessWatchdog(argv: readonly string[]): string[] {
  return ['bash', '-c', WATCHDOG, 'bash', String(process.pid), ...argv];
}

/**
 * `run`: a shell command in the workspace root (seed components 1, 2 and 8).
 * The deny list is checked first; the command then runs in its own process
 * group (inside bubblewrap when the policy and machine allow) with a filtered
 * environment and a timeout, and the observation is `exit=<code>` followed by
 * the head and tail of the output.
 *
 * A non-zero exit is a successful call (`ok: true`): the exit code is the
 * information. Blocked, timed-out, aborted and unstartable commands are not.
 *
 * @example await runTool.execute({ command: 'pytest -q' }, ctx) // { content: 'exit=0\n3 passed in 0.01s\n', ... }
 */
export const runTool: Tool<typeof parameters> = {
  name: 'run',
  description: 'Run a shell command in the repo root. Output is truncated.',
  parameters,
  async execute({ command }, ctx) {
    const denied = findDenyRule(command, ctx.policy.deny);
    if (denied !== null) {
      return outcome(`Blocked by policy: ${denied.reason}. Choose a safer action.`, false, { kind: 'command', command, exitCode: null, timedOut: false, blocked: true, blockedBy: denied.reason });
    }
    const sandbox = resolveSandbox(ctx.policy);
    if (sandbox.kind === 'unavailable') {
      return outcome(`Command not run: ${sandbox.reason}.`, false, commandEffect(command, null, false, false));
    }
    const inner = [...MERGE_STDERR, command];
    const argv = withHarnessWatchdog(sandbox.kind === 'bwrap' ? buildSandboxArgv(sandbox.bwrap, ctx.root, sandbox.network, inner, [], ctx.protectedFiles ?? []) : inner);
    const result = await runInProcessGroup({
      argv,
      cwd: ctx.root,
      env: buildCommandEnv(process.env, ctx.policy.envAllow),
      timeoutMs: ctx.policy.timeoutSeconds * 1000,
      signal: ctx.signal,
      outputCap: ctx.limits.outputChars,
    });
    return describeResult(command, result, ctx);
  },
  // A command the stopped run had started may have partly happened (a file appended to, a
  // commit made), and its output is gone: the model is told so instead of it running twice.
  async recover({ command }) {
    return outcome(INTERRUPTED_TEXT, false, { kind: 'command', command, exitCode: null, timedOut: false, blocked: false, interrupted: true });
  },
};

export const INTERRUPTED_TEXT = 'exit=interrupted\nNot run again: rein was stopped while this command was running, so it may have partly run and its output is lost. '
  + 'Check what it was meant to change before running it again.\n';

function describeResult(command: string, result: GroupRunResult, ctx: ToolContext): ToolOutcome {
  const { output } = result;
  switch (result.ending) {
    case 'exited':
      return outcome(output.finish(`exit=${result.exitCode}\n`), true, commandEffect(command, result.exitCode, false, false));
    case 'timeout': {
      const prefix = `exit=timeout after ${ctx.policy.timeoutSeconds}s (process group killed)\n`;
      return outcome(output.finish(prefix), false, commandEffect(command, null, true, false));
    }
    case 'aborted':
      return outcome(output.finish('exit=aborted (process group killed)\n'), false, commandEffect(command, null, false, false));
    case 'failed':
      return outcome(`Command could not start: ${result.failure ?? 'unknown error'}`, false, commandEffect(command, null, false, false));
  }
}

function commandEffect(command: string, exitCode: number | null, timedOut: boolean, blocked: boolean): ToolEffect {
  return { kind: 'command', command, exitCode, timedOut, blocked };
}

function outcome(content: string, ok: boolean, effect: ToolEffect): ToolOutcome {
  return { content, ok, effect };
}
