import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { findGitEntries, type GitEntry } from '../plan/git-entries.js';

/**
 * Workspace files another program on the host runs, or takes commands from, without asking again: hook managers,
 * direnv, editors' automatic tasks, dev containers, other agents' settings, package managers' and toolchains'
 * configuration. Changing them is an ordinary edit an agent may make; the person is told which ones changed, since
 * what they say would run on the host later (the next commit, `cd`, opening the folder, `npm install`).
 */
const HOST_RUN_FILES: readonly string[] = [
  '.husky',
  '.githooks',
  '.pre-commit-config.yaml',
  'lefthook.yml',
  '.lefthook.yml',
  '.lefthook',
  '.gitattributes',
  '.gitmodules',
  '.envrc',
  '.vscode/tasks.json',
  '.vscode/settings.json',
  '.vscode/launch.json',
  '.idea',
  '.devcontainer',
  '.devcontainer.json',
  '.claude/settings.json',
  '.claude/settings.local.json',
  '.codex',
  '.cursor',
  '.mcp.json',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pnpmfile.cjs',
  'bunfig.toml',
  '.cargo/config',
  '.cargo/config.toml',
  '.tool-versions',
  'mise.toml',
  '.mise.toml',
  '.exrc',
  '.nvim.lua',
  '.dir-locals.el',
];

/** package.json fields npm, pnpm, yarn and corepack act on by themselves (install scripts, the package manager to fetch). */
const PACKAGE_AUTORUN_FIELDS = ['preinstall', 'install', 'postinstall', 'prepublish', 'preprepare', 'prepare', 'postprepare'];

/** Entries looked at in one folder of HOST_RUN_FILES before its fingerprint stops growing. */
const MAX_FOLDER_ENTRIES = 2_000;
/** Bytes of one file that go into its fingerprint; a larger file adds its size. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** What the workspace looked like before the run, where it matters to the host. */
export interface HostFilesBaseline {
  git: Map<string, string>;
  files: Map<string, string>;
  /** Workspace paths the user's git configuration names (hooks, includes): watched too. */
  extra: string[];
}

/** What the run left that the host would run. */
export interface HostFilesReport {
  /** Repositories the run created or redirected, moved aside so no git command on the host uses them. */
  quarantined: Array<{ path: string; kind: GitEntry['kind']; movedTo: string }>;
  /** HOST_RUN_FILES (and the extra paths) the run created, changed or removed. */
  changed: Array<{ path: string; change: 'created' | 'changed' | 'removed' }>;
  /** The workspace was too large to look through for repositories. */
  unchecked: boolean;
}

/**
 * Records every repository in the workspace and the fingerprint of every host-run file, before any command runs.
 *
 * @example const baseline = takeHostFilesBaseline(root, ['/w/repo/.husky']); …; const report = checkHostFiles(root, baseline);
 */
export function takeHostFilesBaseline(root: string, extra: readonly string[] = []): HostFilesBaseline {
  const git = new Map(findGitEntries(root).entries.map((entry) => [entry.path, identity(entry)]));
  const relativeExtra = extra.map((file) => path.relative(root, file)).filter((file) => file !== '' && !file.startsWith('..'));
  return { git, files: fingerprints(root, relativeExtra), extra: relativeExtra };
}

/**
 * Compares the workspace with its baseline. A repository that is new, or whose `.git` now points elsewhere, is moved
 * aside (`.git` → `.git.rein-quarantined`, a bare repository's `HEAD` → `HEAD.rein-quarantined`): git no longer
 * finds it, so the user's next `git status` in that folder, a shell prompt or an editor runs nothing its configuration
 * or hooks name. Nothing is deleted; the report says what moved, to look at before moving it back.
 */
export function checkHostFiles(root: string, baseline: HostFilesBaseline): HostFilesReport {
  const found = findGitEntries(root);
  const quarantined: HostFilesReport['quarantined'] = [];
  for (const entry of found.entries) {
    if (baseline.git.get(entry.path) === identity(entry)) continue;
    const movedTo = quarantine(entry);
    if (movedTo) quarantined.push({ path: path.relative(root, entry.path) || '.', kind: entry.kind, movedTo: path.relative(root, movedTo) });
  }
  const after = fingerprints(root, baseline.extra);
  const changed: HostFilesReport['changed'] = [];
  for (const [file, print] of after) {
    const before = baseline.files.get(file);
    if (before === undefined) changed.push({ path: file, change: 'created' });
    else if (before !== print) changed.push({ path: file, change: 'changed' });
  }
  for (const file of baseline.files.keys()) if (!after.has(file)) changed.push({ path: file, change: 'removed' });
  return { quarantined, changed, unchecked: found.truncated };
}

/** Lines for the person at the end of the run; empty when there is nothing to say. */
export function describeHostFilesReport(report: HostFilesReport): string[] {
  const lines = report.quarantined.map(
    (entry) =>
      `WARNING: the run created or redirected the git repository at ${entry.path}; moved aside to ${entry.movedTo} so no git command runs what its configuration or hooks name. Look at its config and hooks before you move it back.`,
  );
  if (report.changed.length > 0)
    lines.push(
      `NOTE: the run changed files other programs run from on this machine (hook managers, direnv, editors, package managers): ${report.changed.map((entry) => `${entry.path} (${entry.change})`).join(', ')}. Review them before you commit, cd, open the folder or install.`,
    );
  if (report.unchecked) lines.push('NOTE: the workspace was too large to look through for new git repositories.');
  return lines;
}

/** What must stay the same for an entry to be the one that was there: its kind and where it points. */
function identity(entry: GitEntry): string {
  return `${entry.kind}:${entry.target ?? ''}`;
}

/** Moves an entry aside under a name no git looks for; the first free `.rein-quarantined[-n]` name. */
function quarantine(entry: GitEntry): string | null {
  const from = entry.kind === 'bare' ? path.join(entry.path, 'HEAD') : entry.path;
  for (let n = 0; n < 100; n++) {
    const to = `${from}.rein-quarantined${n === 0 ? '' : `-${n}`}`;
    if (fs.lstatSync(to, { throwIfNoEntry: false })) continue;
    try {
      fs.renameSync(from, to);
      return to;
    } catch {
      return null;
    }
  }
  return null;
}

function fingerprints(root: string, extra: readonly string[]): Map<string, string> {
  const prints = new Map<string, string>();
  for (const relative of [...HOST_RUN_FILES, ...extra]) {
    const print = fingerprint(path.join(root, relative));
    if (print !== null) prints.set(relative, print);
  }
  const scripts = packageAutorun(path.join(root, 'package.json'));
  if (scripts !== null) prints.set('package.json (install scripts, packageManager)', scripts);
  return prints;
}

/** A hash of a file's bytes, a link's target, or a folder's names and contents (bounded); null when it does not exist. */
function fingerprint(file: string): string | null {
  const stat = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!stat) return null;
  const hash = crypto.createHash('sha256');
  const stack: string[] = [file];
  let seen = 0;
  while (stack.length > 0 && seen < MAX_FOLDER_ENTRIES) {
    const current = stack.pop()!;
    const entry = fs.lstatSync(current, { throwIfNoEntry: false });
    seen++;
    hash.update(`${path.relative(file, current)}\0`);
    if (!entry) continue;
    if (entry.isSymbolicLink()) hash.update(`link:${fs.readlinkSync(current)}\0`);
    else if (entry.isFile()) hash.update(`file:${entry.mode}:${entry.size}:${fileHash(current, entry.size)}\0`);
    else if (entry.isDirectory()) {
      hash.update(`dir:${entry.mode}\0`);
      const children = safeReaddir(current).sort();
      for (const child of children.reverse()) stack.push(path.join(current, child));
    } else hash.update(`other:${entry.mode}\0`);
  }
  return hash.digest('hex');
}

/** Only regular files are read (a FIFO would block); a large one adds its first MAX_FILE_BYTES. */
function fileHash(file: string, size: number): string {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return 'unreadable';
  }
  try {
    const buffer = Buffer.alloc(Math.min(size, MAX_FILE_BYTES));
    const read = fs.readSync(fd, buffer, 0, buffer.length, 0);
    return crypto.createHash('sha256').update(buffer.subarray(0, read)).digest('hex');
  } finally {
    fs.closeSync(fd);
  }
}

function packageAutorun(file: string): string | null {
  const stat = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!stat?.isFile() || stat.size > MAX_FILE_BYTES) return null;
  try {
    const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as { scripts?: Record<string, unknown>; packageManager?: unknown };
    const picked = PACKAGE_AUTORUN_FIELDS.map((name) => [name, manifest.scripts?.[name] ?? null]);
    return crypto
      .createHash('sha256')
      .update(JSON.stringify([picked, manifest.packageManager ?? null]))
      .digest('hex');
  } catch {
    return 'unparsable';
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
