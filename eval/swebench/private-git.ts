import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Settings on every call: no hooks, no file-system monitor, no external diff, no pager, no network, no embedded bare
 * repositories, no attributes file of the user's. Filters and textconv drivers have no definition to run: the
 * repository's config is never read (see `openPrivateGit`), and neither are the user's or the system's.
 */
const HARDENED = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.attributesFile=/dev/null',
  'core.excludesFile=/dev/null',
  'core.pager=cat',
  'core.bare=false',
  'core.untrackedCache=false',
  'diff.external=',
  'safe.bareRepository=explicit',
  'protocol.allow=never',
  'advice.detachedHead=false',
].flatMap((setting) => ['-c', setting]);

/** git on a workspace, through a repository of rein's own: what a run left in the workspace's `.git` is never read. */
interface PrivateGit {
  /** Runs git with the hardened settings; its stdout. */
  run(args: readonly string[], input?: string): string;
  /** The tree entries of `commit` that are submodules (gitlinks): left out of patches, their folders never entered. */
  gitlinks(commit: string): string[];
  /** Removes the private repository. */
  close(): void;
}

/**
 * A private repository for rein's own git calls on a workspace the agent had: a fresh `GIT_DIR` with no config, no
 * hooks and no info files, whose objects are the workspace's (borrowed read-only through `alternates`), with an index
 * of its own read from the trusted `base` commit. git then takes nothing from the workspace's `.git` but objects: not
 * its config (a `core.fsmonitor`, a filter, a `commondir`), not its hooks, not its index (a crafted entry, a hidden
 * `skip-worktree` file, a gitlink), not its `info/exclude` or `info/attributes`, not its replace refs. Only the
 * user's and the system's configuration files are left out too, and the environment is a clean one.
 *
 * @example const git = openPrivateGit('/w/task', 'd16bfe05'); try { git.run(['diff', base]) } finally { git.close() }
 */
export function openPrivateGit(workspace: string, base: string): PrivateGit {
  const dir = mkdtempSync(join(tmpdir(), 'rein-private-git-'));
  const gitDir = join(dir, 'repository.git');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    LANG: 'C',
    GIT_DIR: gitDir,
    GIT_WORK_TREE: resolve(workspace),
    GIT_INDEX_FILE: join(dir, 'index'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_CEILING_DIRECTORIES: '/',
    GIT_TERMINAL_PROMPT: '0',
  };
  const run = (args: readonly string[], input?: string) =>
    execFileSync('git', [...HARDENED, ...args], {
      cwd: resolve(workspace),
      env,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(input !== undefined ? { input } : {}),
    });
  try {
    execFileSync('git', ['init', '--quiet', '--bare', '--template=', gitDir], { env: { ...env, GIT_DIR: undefined, GIT_WORK_TREE: undefined } });
    writeFileSync(join(gitDir, 'objects', 'info', 'alternates'), `${join(resolve(workspace), '.git', 'objects')}\n`);
    run(['read-tree', base]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    run,
    gitlinks: (commit) =>
      run(['ls-tree', '-r', '-z', '--full-tree', commit])
        .split('\0')
        .filter((line) => line.startsWith('160000 '))
        .map((line) => line.slice(line.indexOf('\t') + 1)),
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
