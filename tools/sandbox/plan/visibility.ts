import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../../../lib/errors.js';
import { packageRoot } from '../../../lib/package-root.js';
import { HOST_CONFIG_FILES, RULES_FILE_NAMES, WORKSPACE_REIN_DIR } from '../../../lib/state/harness-files.js';
import { realKey } from '../../../lib/state/state-records.js';
import type { CommandPolicy } from '../../../rules/command-policy.js';
import { gitConfigPaths } from './git-config-paths.js';
import type { GitCopy } from './git-copy.js';
import { type GitVisibility, gitMounts } from './git-mounts.js';
import { createHiddenMatcher, type HiddenMatcher, isWithin } from './hidden-paths.js';
import { findHidden } from './hidden-walk.js';
import { detectPackageCaches } from './package-caches.js';
import { detectToolchains } from './toolchains.js';

/** Top-level system folders shown read-only (symlinks such as /bin → usr/bin are recreated as links). */
export const SYSTEM_DIRS: readonly string[] = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt', '/sys', '/nix', '/gnu'];
/** Private, empty and writable in the sandbox. */
export const PRIVATE_DIRS: readonly string[] = ['/tmp', '/var/tmp'];

/** One step of the sandbox's file system, in the order bubblewrap applies them. */
export type Mount =
  | { kind: 'ro' | 'ro-try' | 'rw'; path: string }
  /** `source` shown at `path` (the private copy of `.git` over the real one). */
  | { kind: 'bind'; source: string; path: string; readOnly: boolean }
  | { kind: 'symlink'; path: string; target: string }
  | { kind: 'tmpfs'; path: string }
  | { kind: 'mask'; path: string; directory: boolean };

interface VisibilityInput {
  /** Real workspace root. */
  root: string;
  policy: Pick<CommandPolicy, 'network' | 'readable' | 'hidden'>;
  /** The verification command: programs it names are looked up for toolchains. */
  testCmd?: string;
  home?: string;
  /** The PATH commands get (default: the harness's). */
  pathValue?: string;
  env?: NodeJS.ProcessEnv;
  /** Files in the workspace commands may read but not change (a `--config` rules file). */
  protectedFiles?: readonly string[];
  /** Folders the caller itself needs shown read-only (an eval grader's task folder). */
  extraReadable?: readonly string[];
  /** Folders commands may write besides the workspace (background job logs). */
  writable?: readonly string[];
  /** `read-only` for what only judges the workspace (a hook): nothing in it can be changed, `.git` included. Default `writable`. */
  workspace?: 'writable' | 'read-only';
  /** The run's private copy of `.git` (commands commit there); without one a writable workspace's `.git` is read-only. */
  gitCopy?: GitCopy | null;
}

/** What commands see, decided once per sandbox: the mounts and a summary for the start line and the trace. */
export interface VisibilityPlan {
  root: string;
  home: string;
  network: boolean;
  system: string[];
  privateHome: boolean;
  toolchains: string[];
  caches: string[];
  readable: string[];
  writable: string[];
  /** `permissions.readable` host paths that do not exist. */
  missing: string[];
  masked: { credentials: number; workspace: number; elsewhere: number; truncated: string[] };
  /** How git looks to commands (a writable workspace). */
  git: GitVisibility | null;
  mounts: Mount[];
}

/**
 * Decides what a sandboxed command may see: the system read-only (with the
 * secrets in /etc masked), the workspace writable (rein's own state and rules
 * files read-only), a private /tmp, /var/tmp and home directory, and, read-only,
 * the toolchains found from PATH and the test command, the package caches and
 * the folders `permissions.readable` adds. Credential paths, `.env*` files
 * and what `permissions.hidden` names are masked wherever they fall inside
 * something visible. Everything else on the disk does not exist for commands.
 *
 * Throws `UsageError` when `permissions.readable` names a credential path.
 *
 * @example const plan = planVisibility({ root: '/w/repo', policy: { network: false }, testCmd: 'pytest -q' });
 */
export function planVisibility(input: VisibilityInput): VisibilityPlan {
  const home = path.resolve(input.home ?? os.homedir());
  const { root } = input;
  const matcher = createHiddenMatcher({ root, home, readable: input.policy.readable ?? [], hidden: input.policy.hidden ?? [] });
  const mounts: Mount[] = [];
  const system = systemMounts(mounts);
  mounts.push(...etcMasks(matcher, system));
  mounts.push(...PRIVATE_DIRS.map((dir): Mount => ({ kind: 'tmpfs', path: dir })));
  const privateHome = !isWithin(root, home) && !system.some((dir) => isWithin(dir, home));
  if (privateHome) mounts.push({ kind: 'tmpfs', path: home });
  const toolchains = detectToolchains({
    root,
    home,
    pathValue: withoutReinBin(input.pathValue ?? process.env.PATH ?? ''),
    testCmd: input.testCmd,
    env: input.env ?? process.env,
    visible: system,
    ownInstall: reinInstall(),
  }).filter((dir) => matcher.reason(dir, true) === null);
  const caches = detectPackageCaches(home).filter((dir) => !toolchains.some((chain) => isWithin(chain, dir)));
  const { readable, missing } = readableHostPaths(matcher);
  const extra = (input.extraReadable ?? []).map((dir) => path.resolve(dir));
  for (const dir of byDepth([...toolchains, ...caches, ...readable, ...extra])) mounts.push({ kind: 'ro', path: dir });
  const workspaceWritable = input.workspace !== 'read-only';
  mounts.push({ kind: workspaceWritable ? 'rw' : 'ro', path: root });
  // One list with the file tools' (hostTrustedReason): what rein, git or the host reads as its own is never writable.
  const readOnly = [...[WORKSPACE_REIN_DIR, ...RULES_FILE_NAMES, ...HOST_CONFIG_FILES].map((name) => path.join(root, name)), ...(input.protectedFiles ?? [])];
  for (const file of readOnly) mounts.push({ kind: 'ro-try', path: file });
  // A read-only workspace has a read-only .git already, nested ones included.
  const git = workspaceWritable
    ? gitMounts(root, { copy: input.gitCopy, configNamed: gitConfigPaths(root, input.env ?? process.env).map((entry) => entry.path) })
    : null;
  if (git) mounts.push(...git.mounts);
  const writable = (input.writable ?? []).map((dir) => path.resolve(dir));
  for (const dir of writable) mounts.push({ kind: 'rw', path: dir });
  const masked = maskHidden(mounts, matcher, {
    root,
    walked: [root, ...readable],
    visible: [...system, root, ...toolchains, ...caches, ...readable, ...extra, ...writable],
  });
  if (input.policy.network) mounts.push(...resolverMounts([...system, root]));
  return {
    root,
    home,
    network: input.policy.network,
    system,
    privateHome,
    toolchains,
    caches,
    readable: [...readable, ...extra],
    writable,
    missing,
    masked,
    git: git?.git ?? null,
    mounts,
  };
}

function systemMounts(mounts: Mount[]): string[] {
  const shown: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    const stat = fs.lstatSync(dir, { throwIfNoEntry: false });
    if (stat?.isSymbolicLink()) mounts.push({ kind: 'symlink', path: dir, target: fs.readlinkSync(dir) });
    else if (stat?.isDirectory()) mounts.push({ kind: 'ro', path: dir });
    else continue;
    shown.push(dir);
  }
  return shown;
}

function etcMasks(matcher: HiddenMatcher, system: string[]): Mount[] {
  const sshKeys = safeReaddir('/etc/ssh').map((name) => path.join('/etc/ssh', name));
  return [...matcher.credentialPaths.filter((file) => file.startsWith('/etc/')), ...sshKeys]
    .filter((file) => matcher.reason(file, false) !== null)
    .flatMap((file) => maskFor(file, system));
}

function readableHostPaths(matcher: HiddenMatcher): { readable: string[]; missing: string[] } {
  const readable: string[] = [];
  const missing: string[] = [];
  for (const { entry, path: absolute } of matcher.readableHostPaths) {
    const stat = fs.statSync(absolute, { throwIfNoEntry: false });
    const why = matcher.reason(absolute, stat?.isDirectory() ?? true);
    if (why !== null) throw new UsageError(`permissions.readable: ${entry} cannot be shown to commands: ${why}`);
    if (stat) readable.push(fs.realpathSync(absolute));
    else missing.push(absolute);
  }
  return { readable, missing };
}

/** Masks for credential paths and hidden host paths below visible folders, and for hidden files found by walking the workspace and `readable`. */
function maskHidden(mounts: Mount[], matcher: HiddenMatcher, scope: { root: string; walked: string[]; visible: string[] }): VisibilityPlan['masked'] {
  const masked = { credentials: 0, workspace: 0, elsewhere: 0, truncated: [] as string[] };
  const done = new Set<string>();
  const add = (file: string, counter: 'credentials' | 'workspace' | 'elsewhere') => {
    const masks = maskFor(file, scope.visible);
    if (masks.length === 0 || [...done].some((dir) => isWithin(dir, masks[0]!.path))) return;
    done.add(masks[0]!.path);
    mounts.push(...masks);
    masked[counter] += 1;
  };
  const inVisible = (file: string) => scope.visible.some((dir) => isWithin(dir, file));
  for (const file of matcher.credentialPaths) if (!file.startsWith('/etc/') && inVisible(file)) add(file, 'credentials');
  for (const file of matcher.hiddenHostPaths) if (inVisible(file)) add(file, 'elsewhere');
  for (const dir of scope.walked) {
    const walk = findHidden(dir, matcher);
    if (walk.truncated) masked.truncated.push(dir);
    for (const entry of walk.found) add(entry.path, isWithin(scope.root, entry.path) ? 'workspace' : 'elsewhere');
  }
  return masked;
}

/**
 * The mounts that hide one path: an unreadable empty file or folder. A
 * symlink is followed to what it names, and one pointing outside the
 * sandbox needs nothing (it dangles there).
 */
function maskFor(file: string, visible: readonly string[]): Mount[] {
  let real: string;
  try {
    real = fs.realpathSync(file);
  } catch {
    return [];
  }
  if (!visible.some((dir) => isWithin(dir, real))) return [];
  const directory = fs.statSync(real).isDirectory();
  return [{ kind: 'mask', path: real, directory }];
}

/** /etc/resolv.conf is often a link into /run, which is not shown: with the network on, its target is. */
function resolverMounts(visible: string[]): Mount[] {
  try {
    const real = fs.realpathSync('/etc/resolv.conf');
    return visible.some((dir) => isWithin(dir, real)) ? [] : [{ kind: 'ro', path: real }];
  } catch {
    return [];
  }
}

/** Parents before children, so a folder bound later is not covered by its parent. */
function byDepth(dirs: string[]): string[] {
  return [...new Set(dirs)].sort((a, b) => a.split(path.sep).length - b.split(path.sep).length || a.localeCompare(b));
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * rein's own folders: every entry of the core package but its node_modules (in a checkout, the dependencies and
 * the tests' fake homes live there; the workspace packages are folders of it), and, installed from npm, its sibling
 * `rein-*` packages in the same node_modules.
 */
function reinInstall(): string[] {
  const core = packageRoot();
  const entries = (dir: string): string[] => {
    try {
      return fs.readdirSync(dir);
    } catch {
      return [];
    }
  };
  const own = entries(core)
    .filter((name) => name !== 'node_modules')
    .map((name) => path.join(core, name));
  const parent = path.dirname(core);
  if (path.basename(parent) !== 'node_modules') return own;
  const siblings = entries(parent).filter((name) => /^rein-/.test(name));
  return [...own, ...siblings.map((name) => realKey(path.join(parent, name)))];
}

/**
 * PATH without the `node_modules/.bin` that `npm run`/`npx` put first to start rein itself (its checkout's, or the
 * one its package is installed under): rein's dependencies are not a toolchain the agent's commands asked for. A
 * workspace's own `node_modules/.bin` is inside the workspace and shown with it anyway.
 */
function withoutReinBin(pathValue: string): string {
  const core = packageRoot();
  const parent = path.dirname(core);
  const own = [path.join(core, 'node_modules', '.bin'), ...(path.basename(parent) === 'node_modules' ? [path.join(parent, '.bin')] : [])].map(realKey);
  return pathValue
    .split(path.delimiter)
    .filter((dir) => !(path.isAbsolute(dir) && own.includes(realKey(dir))))
    .join(path.delimiter);
}
