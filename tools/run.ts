import { z } from 'zod';
import { checkCommand } from './deny-list.js';
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
 * Unsandboxed, nothing ties a command to the harness's life the way
 * bubblewrap's --die-with-parent does, so a watchdog in the command's own
 * process group checks on the harness every second and kills the group once
 * it is gone (a harness killed with SIGKILL cannot clean up itself). After a
 * normal end the harness kills the group, watchdog included.
 */
function withHarnessWatchdog(argv: readonly string[]): string[] {
  const script = '( while kill -0 "$1" 2>/dev/null; do sleep 1 || exit; done; kill -KILL 0 ) </dev/null >/dev/null 2>&1 & shift; exec "$@"';
  return ['bash', '-c', script, 'bash', String(process.pid), ...argv];
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
    const blocked = checkCommand(command, ctx.policy.deny);
    if (blocked !== null) return outcome(blocked, false, commandEffect(command, null, false, true));
    const sandbox = resolveSandbox(ctx.policy);
    if (sandbox.kind === 'unavailable') {
      return outcome(`Command not run: ${sandbox.reason}.`, false, commandEffect(command, null, false, false));
    }
    const inner = [...MERGE_STDERR, command];
    const argv = sandbox.kind === 'bwrap' ? buildSandboxArgv(sandbox.bwrap, ctx.root, sandbox.network, inner, [], ctx.protectedFiles ?? []) : withHarnessWatchdog(inner);
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
