import { basename } from 'node:path';
import { planHookLaunch } from '../../actors/hooks/hook-launch.js';
import type { HooksDeps } from '../../actors/hooks/hooks-actor.js';
import type { HookOutcome } from '../../actors/hooks/run-hook.js';
import { runFile } from '../record/run-dir.js';
import type { Tracer } from '../record/trace.js';
import type { RunOptions } from '../start-run.js';
import { policyOf } from './sandbox.js';

/**
 * How hooks run for this run: each command in a sandbox of its own under the run's policy (or on the host for
 * `where: host`), in the workspace, with a filtered environment (never the API key), each traced.
 *
 * @example const hooks = hooksDepsFor(options, workspace, trace);
 */
export function hooksDepsFor(options: RunOptions, workspace: string, trace: Tracer): HooksDeps {
  const context = {
    root: workspace,
    policy: policyOf(options.rules),
    env: process.env,
    // CLAUDE_PROJECT_DIR: Claude Code's name for the project folder, so its hook commands run unchanged.
    hookEnv: { REIN_WORKSPACE: workspace, REIN_RUN_DIR: options.runDir, CLAUDE_PROJECT_DIR: workspace, ...agentEnv(options) },
    protectedFiles: options.configPath ? [options.configPath] : [],
  };
  return {
    hooks: options.rules.hooks,
    launch: (command, spec) => planHookLaunch(command, spec.where, context),
    session: { id: basename(options.runDir), transcriptPath: runFile(options.runDir, 'record'), cwd: workspace },
    secrets: (options.secrets ?? []).filter((secret) => secret.length >= 6),
    ...(options.hookFunctions ? { functions: options.hookFunctions } : {}),
    onOutcome: (outcome: HookOutcome, step: number) => {
      trace.log('hook', hookLine(outcome, step));
      trace.flush();
    },
  };
}

/** A hook's trace line: what ran, where, how it ended, and what it answered (empty fields left out). */
function hookLine(outcome: HookOutcome, step: number) {
  const { moment, command, where, hostBecause, exitCode, ms, decision, message, problem, stdout, stderr } = outcome;
  return {
    step,
    moment,
    command,
    where,
    ...(hostBecause ? { hostBecause } : {}),
    exitCode,
    ms,
    ...(decision ? { decision } : {}),
    ...(message ? { message } : {}),
    ...(problem ? { problem } : {}),
    ...(stdout ? { stdout } : {}),
    ...(stderr ? { stderr } : {}),
  };
}

/** A delegated child's hooks are the parent's: they are told which agent asks, how deep, and for which parent run. */
function agentEnv(options: RunOptions): Record<string, string> {
  const link = options.agentLink;
  if (!link) return {};
  return { REIN_AGENT: link.agent, REIN_AGENT_DEPTH: String(link.depth), REIN_PARENT_RUN_DIR: link.parentRunDir };
}
