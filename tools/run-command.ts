import { findDenyRule } from './permissions/deny-list.js';
import { resolveSandbox } from './sandbox/launch/bubblewrap.js';
import { runColdCommand } from './sandbox/launch/cold-command.js';
import type { ToolContext } from './types.js';

/** What a command a tool ran came to. */
export interface CommandRun {
  /**
   * `exited` (with `exitCode`), `timeout`, `aborted` (the run stopped, or the time budget ran out), `blocked` (the
   * deny list refused it) or `failed` (it never started; `failure` says why).
   */
  ending: 'exited' | 'timeout' | 'aborted' | 'blocked' | 'failed';
  /** Exit status, or 128 + signal number as a shell reports it; null unless it exited. */
  exitCode: number | null;
  /** The head and tail of stdout and stderr in arrival order, within the rules' `tools.outputChars`. */
  output: string;
  failure?: string;
}

/**
 * Runs a shell command for a tool, as the `run` tool runs the model's: the deny list first, then in the run's
 * sandbox (its own process group, the filtered environment, the limits, the workspace as the sandbox shows it),
 * with the rules' command timeout (or `timeoutSeconds`) and the call's abort signal. Without a run's sandbox (a tool
 * tested on its own) the command runs in a one-off sandbox of the same policy.
 *
 * @example const lint = await runCommand('npx eslint --fix src', ctx); lint.exitCode === 0
 */
export async function runCommand(command: string, ctx: ToolContext, options: { timeoutSeconds?: number } = {}): Promise<CommandRun> {
  const denied = findDenyRule(command, ctx.policy.deny);
  if (denied !== null) return { ending: 'blocked', exitCode: null, output: '', failure: `blocked by policy: ${denied.reason}` };
  const mode = ctx.sandbox?.mode ?? resolveSandbox(ctx.policy);
  if (mode.kind === 'unavailable') return { ending: 'failed', exitCode: null, output: '', failure: mode.reason };
  const run = { timeoutMs: (options.timeoutSeconds ?? ctx.policy.timeoutSeconds) * 1000, signal: ctx.signal, outputCap: ctx.limits.outputChars };
  const result = ctx.sandbox
    ? await ctx.sandbox.runCommand(command, run)
    : await runColdCommand(command, { ...run, root: ctx.root, policy: ctx.policy, protectedFiles: ctx.protectedFiles });
  return {
    ending: result.ending,
    exitCode: result.exitCode,
    output: result.output.finish(),
    ...(result.failure !== undefined ? { failure: result.failure } : {}),
  };
}
