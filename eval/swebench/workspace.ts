import { execFileSync } from 'node:child_process';
import { lstatSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { RULES_FILE_NAMES, WORKSPACE_REIN_DIR } from 'rein/lib';

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

/** The whole `.git/config` of a checkout: what clone wrote, minus the remote rein removes. */
const CHECKOUT_CONFIG = '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n';

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

/**
 * Before rein runs git in a workspace the agent has had: `.git` must still be
 * the folder the checkout made, and its config goes back to the checkout's,
 * so a filter, a diff driver or a monitor command the agent configured never
 * runs outside the sandbox.
 */
function reclaimCheckout(workspace: string): void {
  const dotGit = join(workspace, '.git');
  const stat = lstatSync(dotGit, { throwIfNoEntry: false });
  if (!stat?.isDirectory()) throw new Error('the workspace .git is no longer the checkout’s folder (replaced or removed during the run)');
  writeFileSync(join(dotGit, 'config'), CHECKOUT_CONFIG);
  rmSync(join(dotGit, 'info', 'attributes'), { force: true });
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
 * without rein's own files (its `.rein/` state, a rules file) and without
 * the files in `exclude` (the instance's test files).
 */
export function modelPatch(workspace: string, base: string, exclude: readonly string[] = []): string {
  reclaimCheckout(workspace);
  const pathspec = [
    '.',
    `:(exclude,top)${WORKSPACE_REIN_DIR}`,
    ...RULES_FILE_NAMES.map((name) => `:(exclude,top)${name}`),
    ...exclude.map((file) => `:(exclude,top,literal)${file}`),
  ];
  // New files become visible to diff once they are intended to be added; the index is the workspace's own.
  git(workspace, ['add', '--all', '--intent-to-add', '--', ...pathspec]);
  return git(workspace, ['diff', '--binary', '--no-color', '--no-ext-diff', '--no-renames', base, '--', ...pathspec]);
}

/** Puts the instance's test files back as they were at `base` (the agent may have edited them), then applies its test patch. */
export function applyTestPatch(workspace: string, base: string, testPatch: string): void {
  reclaimCheckout(workspace);
  for (const file of filesInPatch(testPatch)) {
    const existed = git(workspace, ['ls-tree', '--name-only', base, '--', file]).trim() !== '';
    if (existed) {
      git(workspace, ['checkout', base, '--', file]);
      continue;
    }
    // A file the patch creates: whatever the agent put there goes (from the index too), so the patch applies.
    git(workspace, ['rm', '-q', '--cached', '--ignore-unmatch', '--', file]);
    const path = resolve(workspace, file);
    if (path.startsWith(`${resolve(workspace)}${sep}`)) rmSync(path, { force: true });
  }
  git(workspace, ['apply', '--whitespace=nowarn', '-'], testPatch);
}
