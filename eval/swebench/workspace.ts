import { execFileSync } from 'node:child_process';
import { realpathSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { RULES_FILE_NAMES, WORKSPACE_REIN_DIR } from 'rein/lib';
import { openPrivateGit } from './private-git.js';

/** Settings that keep git from running anything a repository's files could name (hooks, a file-system monitor, diff drivers). */
const SAFE_GIT = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'diff.external=',
  '-c',
  'core.attributesFile=/dev/null',
  '-c',
  'advice.detachedHead=false',
];

/** The environment without GIT_* variables, which could point git at another repository. */
const gitEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GIT_')));

const git = (cwd: string, args: string[], input?: string) =>
  execFileSync('git', [...SAFE_GIT, ...args], {
    cwd,
    env: gitEnv(),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(input !== undefined ? { input } : {}),
  });

/**
 * A fresh checkout of `commit` in the empty folder `workspace`: a clone that
 * shares the source's objects (cheap, and the source is never written to),
 * detached at the commit, its remote removed so nothing points back.
 *
 * @example checkoutInstance('/data/repos/astropy__astropy.git', 'd16bfe05', workspace);
 */
export function checkoutInstance(source: string, commit: string, workspace: string): void {
  git(workspace, ['clone', '--quiet', '--shared', '--no-checkout', source, '.']);
  git(workspace, ['checkout', '--quiet', '--detach', commit]);
  git(workspace, ['remote', 'remove', 'origin']);
}

/** The files a unified diff touches (its `diff --git a/X b/Y` headers; both sides). */
export function filesInPatch(patch: string): string[] {
  const files = new Set<string>();
  for (const match of patch.matchAll(/^diff --git a\/(\S+) b\/(\S+)$/gm)) {
    files.add(match[1]!);
    files.add(match[2]!);
  }
  return [...files];
}

/**
 * The change the agent made, as SWE-bench takes it for `model_patch`: the
 * diff of the working tree (new files included) against `base`, binary-safe,
 * without rein's own files (its `.rein/` state, a rules file), without the
 * files in `exclude` (the instance's test files) and without submodules. git
 * runs through a private repository (`openPrivateGit`): nothing the agent left
 * in the workspace's `.git` (config, hooks, index, excludes) is read or run.
 */
export function modelPatch(workspace: string, base: string, exclude: readonly string[] = []): string {
  const git = openPrivateGit(workspace, base);
  try {
    const pathspec = [
      '.',
      `:(exclude,top)${WORKSPACE_REIN_DIR}`,
      ...RULES_FILE_NAMES.map((name) => `:(exclude,top)${name}`),
      ...[...exclude, ...git.gitlinks(base)].map((file) => `:(exclude,top,literal)${file}`),
    ];
    // New files become visible to diff once they are intended to be added (in the private index).
    git.run(['add', '--all', '--intent-to-add', '--', ...pathspec]);
    return git.run(['diff', '--binary', '--no-color', '--no-ext-diff', '--no-textconv', '--no-renames', '--ignore-submodules=all', base, '--', ...pathspec]);
  } finally {
    git.close();
  }
}

/** Puts the instance's test files back as they were at `base` (the agent may have edited them), then applies its test patch. */
export function applyTestPatch(workspace: string, base: string, testPatch: string): void {
  const git = openPrivateGit(workspace, base);
  try {
    for (const file of filesInPatch(testPatch)) {
      const existed = git.run(['ls-tree', '--name-only', base, '--', file]).trim() !== '';
      if (existed) {
        git.run(['checkout', base, '--', `:(literal)${file}`]);
        continue;
      }
      // A file the patch creates: whatever the agent put there goes, so the patch applies; never through a link out.
      removeInside(workspace, file);
    }
    git.run(['apply', '--whitespace=nowarn', '-'], testPatch);
  } finally {
    git.close();
  }
}

/** Deletes `file` if its real folder is inside the workspace (a folder the agent replaced by a link is not followed). */
function removeInside(workspace: string, file: string): void {
  const root = realpathSync(workspace);
  let folder: string;
  try {
    folder = realpathSync(dirname(resolve(root, file)));
  } catch {
    return;
  }
  if (folder !== root && !folder.startsWith(`${root}${sep}`)) return;
  rmSync(join(folder, basename(file)), { force: true, recursive: false });
}
