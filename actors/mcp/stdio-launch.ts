import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CommandPolicy } from '../../rules/command-policy.js';
import type { StdioServerRules } from '../../rules/mcp-servers.js';
import { findOnPath, resolveSandbox } from '../../tools/sandbox/launch/bubblewrap.js';
import { watchedArgv } from '../../tools/sandbox/lifetime/watched-argv.js';
import { sandboxLimits } from '../../tools/sandbox/limits/sandbox-limits.js';
import { buildCommandEnv } from '../../tools/sandbox/plan/environment.js';
import { isWithin } from '../../tools/sandbox/plan/hidden-paths.js';
import { planVisibility } from '../../tools/sandbox/plan/visibility.js';
import { expandVariables } from './variables.js';

/** How a stdio server is started: the full argv (watchdog, sandbox, server), its environment and where it runs. */
export interface StdioLaunch {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  /** One line for the trace: sandboxed or not, and why. */
  sandbox: string;
  /** For a failed start: links among the server's files that point where the sandbox shows nothing, and the `readable` that would show them. */
  readableHint?: string;
}

export interface LaunchContext {
  /** Real workspace root. */
  root: string;
  policy: CommandPolicy;
  /** rein's own environment, where `${NAME}` values are read. */
  env: NodeJS.ProcessEnv;
  protectedFiles?: readonly string[];
}

/**
 * The argv of a stdio MCP server, built like a command's: the environment
 * from the run's allow-list plus the server's own `env`, bubblewrap with the
 * run's visibility plan (the server's install folder shown read-only) unless
 * the server has `sandbox: false` or the rules turned the sandbox off, and the
 * harness watchdog (tools/sandbox/launch/watchdog.sh) outermost, so the server dies with
 * a harness killed by SIGKILL.
 *
 * @example planStdioLaunch({ command: 'node', args: ['server.js'], ... }, { root, policy, env: process.env })
 */
export function planStdioLaunch(server: StdioServerRules, context: LaunchContext): StdioLaunch {
  const env = { ...buildCommandEnv(context.env, context.policy.envAllow), ...expandVariables(server.env, context.env, 'env') };
  const cwd = server.cwd ? path.resolve(context.root, server.cwd) : context.root;
  const command = [server.command, ...server.args];
  if (!server.command.includes('/') && findOnPath(server.command, env.PATH) === null) throw new Error(`${server.command} was not found on PATH`);
  const policy = { ...context.policy, network: server.network ?? context.policy.network };
  const mode = server.sandbox ? resolveSandbox(policy) : { kind: 'none' as const, reason: 'the server has sandbox: false' };
  if (mode.kind === 'unavailable') throw new Error(`cannot start the server: ${mode.reason}`);
  // Under the run's memory limit, and sandboxed its process limit too (as an rlimit: the server has no cgroup of its own).
  const limits = sandboxLimits(context.policy.limits);
  if (mode.kind === 'none') return { argv: watchedArgv(command, limits, null), env, cwd, sandbox: `unsandboxed (${mode.reason})` };
  const plan = planVisibility({
    root: context.root,
    policy,
    protectedFiles: context.protectedFiles,
    extraReadable: [...installFolders(server, env.PATH ?? '', context.root), ...server.readable.map((dir) => path.resolve(context.root, dir))],
    env: context.env,
  });
  const shown = [context.root, ...installFolders(server, env.PATH ?? '', context.root), ...server.readable.map((dir) => path.resolve(context.root, dir))];
  const hint = readableHint(linkedOutside(server, { cwd, pathValue: env.PATH ?? '', shown }));
  return {
    // The plan's root is only where the sandbox starts (--chdir); the workspace mounts are already in it.
    argv: watchedArgv(command, limits, { bwrap: mode.bwrap, plan: { ...plan, root: cwd } }),
    env,
    cwd,
    sandbox: `in the run's bubblewrap sandbox (network ${policy.network ? 'on' : 'off'})`,
    ...(hint ? { readableHint: hint } : {}),
  };
}

/** Where the system lives: links into these resolve in the sandbox too (it shows them read-only). */
const SYSTEM_FOLDERS = ['/usr', '/bin', '/lib', '/lib64', '/etc', '/opt', '/nix'];

/**
 * Links among a server's files whose target the sandbox does not show: the command or a script that is a link, and
 * the entries of the folders its imports resolve from (`node_modules/<dep>` linked by npm link, pnpm or a workspace
 * package). Such a server starts on the host and fails in the sandbox ("Cannot find module"); `readable` fixes it.
 */
function linkedOutside(server: StdioServerRules, options: { cwd: string; pathValue: string; shown: readonly string[] }): { link: string; target: string }[] {
  const visible = (file: string) => [...options.shown, ...SYSTEM_FOLDERS].some((folder) => isWithin(folder, file));
  const command = server.command.includes('/') ? path.resolve(options.cwd, server.command) : findOnPath(server.command, options.pathValue);
  const scripts = server.args.filter((arg) => /\.(?:[cm]?js|ts|py)$/.test(arg)).map((arg) => path.resolve(options.cwd, arg));
  const found: { link: string; target: string }[] = [];
  const consider = (link: string) => {
    const target = realPath(link);
    if (target && target !== link && !visible(target) && !found.some((each) => each.target === target)) found.push({ link, target });
  };
  for (const file of [command, ...scripts]) {
    if (!file || !isFile(file)) continue;
    consider(file);
    const folder = folderOf(realPath(file) ?? file);
    for (const entry of linkedEntries(folder)) consider(entry);
  }
  return found.slice(0, 5);
}

/** The entries of a folder and of its `node_modules` (scoped packages included) that are symbolic links. */
function linkedEntries(folder: string): string[] {
  const folders = [folder, path.join(folder, 'node_modules')];
  const links: string[] = [];
  for (const each of folders)
    for (const entry of listFolder(each)) {
      const full = path.join(each, entry.name);
      if (entry.isSymbolicLink()) links.push(full);
      else if (entry.isDirectory() && entry.name.startsWith('@'))
        for (const scoped of listFolder(full)) if (scoped.isSymbolicLink()) links.push(path.join(full, scoped.name));
    }
  return links.slice(0, 2_000);
}

function listFolder(folder: string): fs.Dirent[] {
  try {
    return fs.readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
}

function realPath(file: string): string | null {
  try {
    return fs.realpathSync(file);
  } catch {
    return null;
  }
}

function readableHint(links: readonly { link: string; target: string }[]): string | undefined {
  if (links.length === 0) return undefined;
  const targets = [...new Set(links.map((each) => folderOf(each.target)))];
  return `${links.map((each) => `${each.link} links to ${each.target}`).join(', ')}, which the sandbox does not show: add "readable": ${JSON.stringify(targets)} to the server (or "sandbox": false)`;
}

/**
 * Folders a server needs to read to start: the command's own folder when it
 * is a path, and for a script given as the first argument (`node server.js`)
 * the `node_modules` folder it sits in (its imports resolve up the tree) or
 * else its folder. Other arguments are never shown: `/` or a home folder as
 * an argument must not open the disk to the server; `readable` does that.
 */
function installFolders(server: StdioServerRules, pathValue: string, root: string): string[] {
  const command = path.isAbsolute(server.command) ? server.command : findOnPath(server.command, pathValue);
  // Every script the arguments name, not only the first: a wrapper (`bash -c '…' node /x/server.js`) names it later.
  const scripts = server.args.filter((arg) => /\.(?:[cm]?js|ts|py)$/.test(arg));
  const candidates = [command, ...scripts];
  const folders = candidates.filter((file): file is string => file !== null && path.isAbsolute(file) && isFile(file)).map(folderOf);
  // Never the home folder, `/`, or a folder that holds the workspace or the home: those show far more than a server.
  const home = path.resolve(os.homedir());
  return [...new Set(folders)].filter((folder) => !isWithin(folder, home) && !isWithin(folder, root));
}

function isFile(file: string): boolean {
  return fs.statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
}

function folderOf(file: string): string {
  const parts = file.split(path.sep);
  const at = parts.lastIndexOf('node_modules');
  return at > 0 ? parts.slice(0, at + 1).join(path.sep) : path.dirname(file);
}
