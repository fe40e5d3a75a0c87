import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { realKey } from '../../lib/state/state-records.js';
import type { CommandPolicy } from '../../rules/command-policy.js';
import { commandWords } from '../../rules/hooks/command-words.js';
import { resolveSandbox } from '../../tools/sandbox/launch/bubblewrap.js';
import { watchedArgv, withHarnessWatchdog } from '../../tools/sandbox/lifetime/watched-argv.js';
import { sandboxLimits } from '../../tools/sandbox/limits/sandbox-limits.js';
import { buildCommandEnv } from '../../tools/sandbox/plan/environment.js';
import { isWithin } from '../../tools/sandbox/plan/hidden-paths.js';
import { planVisibility } from '../../tools/sandbox/plan/visibility.js';
import type { HookLaunch } from './run-hook.js';

interface HookLaunchContext {
  /** Real workspace root. */
  root: string;
  /** The run's command policy: the hook's sandbox is built from it. */
  policy: CommandPolicy;
  /** rein's own environment, filtered as for the run's commands. */
  env: NodeJS.ProcessEnv;
  /** Variables every hook gets (REIN_WORKSPACE, REIN_RUN_DIR). */
  hookEnv: Record<string, string>;
  protectedFiles?: readonly string[];
}

/** What a host hook gets from rein's environment, besides `hookEnv`: the same small set as before sandboxed hooks. */
const HOST_ENV = ['PATH', 'HOME', 'LANG', 'TMPDIR'];

/**
 * Where and how a hook command runs. `where: sandbox` (the default): in a fresh bubblewrap sandbox of its own,
 * built like the run's commands' (their visibility plan, network rule, environment allow-list and limits), but
 * with the workspace read-only: a hook judges, it does not edit. An absolute script path outside the workspace
 * (`~/.config/rein/hooks/check.sh`) has its folder shown read-only too. When the run has no sandbox the hook runs
 * on the host like the run's commands, and says so. `where: host`: on the host, as the person asked. Either way
 * the harness watchdog is outermost, so nothing outlives a harness killed with SIGKILL.
 *
 * Throws when the rules require a sandbox this machine cannot make (the hook then fails closed).
 *
 * @example planHookLaunch('./policy.sh', 'sandbox', { root, policy, env: process.env, hookEnv: { REIN_WORKSPACE: root } })
 */
export function planHookLaunch(command: string, where: 'sandbox' | 'host', context: HookLaunchContext): HookLaunch {
  const shell = ['/bin/sh', '-c', command];
  if (where === 'host') return onHost(shell, context, 'where: host');
  const mode = resolveSandbox(context.policy);
  if (mode.kind === 'unavailable') throw new Error(`cannot run in the sandbox: ${mode.reason}`);
  if (mode.kind === 'none') return onHost(shell, context, `the run has no sandbox (${mode.reason})`);
  const plan = planVisibility({
    root: context.root,
    policy: context.policy,
    protectedFiles: context.protectedFiles,
    extraReadable: scriptFolders(command, context.root),
    env: context.env,
    workspace: 'read-only',
  });
  return {
    argv: watchedArgv(shell, sandboxLimits(context.policy.limits), { bwrap: mode.bwrap, plan }),
    env: { ...buildCommandEnv(context.env, context.policy.envAllow), ...context.hookEnv },
    cwd: context.root,
    where: 'sandbox',
  };
}

function onHost(shell: string[], context: HookLaunchContext, because: string): HookLaunch {
  const env: Record<string, string> = { ...context.hookEnv };
  for (const name of HOST_ENV) if (context.env[name]) env[name] = context.env[name];
  return { argv: withHarnessWatchdog(shell), env, cwd: context.root, where: 'host', hostBecause: because };
}

/**
 * Folders of the scripts a command names by absolute path outside the workspace, shown read-only to the hook.
 * Never the home directory itself or a folder holding the workspace (`/` is one): those would show much more than a script.
 */
function scriptFolders(command: string, root: string): string[] {
  const home = os.homedir();
  const folders = commandWords(command)
    .map((word) => word.replace(/^~(?=\/)/, home))
    .filter((word) => path.isAbsolute(word) && isFile(word))
    .map((file) => fs.realpathSync(file))
    .filter((file) => !isWithin(root, file))
    .map((file) => path.dirname(file))
    .filter((folder) => folder !== home && folder !== realKey(home) && !isWithin(folder, root));
  return [...new Set(folders)];
}

function isFile(file: string): boolean {
  return fs.statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
}
