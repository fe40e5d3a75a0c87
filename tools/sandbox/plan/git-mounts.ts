import fs from 'node:fs';
import path from 'node:path';
import { type GitCopy, SANDBOX_GIT_OBJECTS } from './git-copy.js';
import { findGitEntries, type GitEntry } from './git-entries.js';
import { isWithin } from './hidden-paths.js';
import type { Mount } from './visibility.js';

/** How the workspace's git looks to commands, for the start line and the trace. */
export interface GitVisibility {
  /** `copy`: a private copy of `.git` (commits stay in the sandbox); `read-only`: the real one, unchangeable; `none`: no `.git` folder. */
  repository: 'copy' | 'read-only' | 'none';
  /** Other `.git` entries and bare repositories in the workspace, each read-only. */
  nested: number;
  /** Workspace paths the git configuration names as hooks or configuration (`core.hooksPath`, includes), read-only. */
  configNamed: number;
  /** The workspace was too large to look through for nested repositories. */
  unchecked: boolean;
}

/**
 * Everything git would read as configuration or run as code, made unchangeable from the sandbox: the user's next git
 * command on the host must never run what a command wrote. The repository's `.git` is shown as a private copy
 * (`makeGitCopy`: commands can commit, the real one is never written) or, without one, read-only as a whole; every
 * nested `.git` (folder, `gitdir:` file or link) and bare repository read-only, each a mount point that cannot be
 * moved aside; and what the git configuration outside the workspace names inside it (`configNamed`, husky's
 * `core.hooksPath=.husky`) read-only. A repository created during the run cannot be prevented by a mount; the run
 * quarantines it at its end (see `workspace-watch.ts`).
 *
 * @example gitMounts('/w/repo', { copy, configNamed: ['/w/repo/.husky'] }).mounts
 */
export function gitMounts(root: string, options: { copy?: GitCopy | null; configNamed?: readonly string[] } = {}): { mounts: Mount[]; git: GitVisibility } {
  const found = findGitEntries(root);
  const top = path.join(root, '.git');
  const mounts: Mount[] = [];
  const nested = found.entries.filter((entry) => entry.path !== top);
  // Nested ones first: the top `.git` below may be a copy mounted over the real one, and nothing nested is inside it.
  for (const entry of nested) mounts.push(...readOnlyEntry(root, entry));
  const configNamed = (options.configNamed ?? []).filter((file) => fs.existsSync(file) && !isInsideDotGit(root, file));
  for (const file of configNamed) mounts.push({ kind: 'ro', path: file });
  const topStat = fs.lstatSync(top, { throwIfNoEntry: false });
  let repository: GitVisibility['repository'] = 'none';
  if (topStat?.isDirectory() && options.copy) {
    repository = 'copy';
    mounts.push({ kind: 'bind', source: options.copy.dir, path: top, readOnly: false });
    mounts.push({ kind: 'bind', source: options.copy.objects, path: SANDBOX_GIT_OBJECTS, readOnly: true });
    for (const store of options.copy.alternates) mounts.push({ kind: 'ro', path: store });
    if (options.copy.modules) mounts.push({ kind: 'bind', source: options.copy.modules, path: path.join(top, 'modules'), readOnly: true });
  } else if (topStat) {
    const entry = found.entries.find((candidate) => candidate.path === top);
    if (entry) {
      repository = 'read-only';
      mounts.push(...readOnlyEntry(root, entry));
    }
  }
  return { mounts, git: { repository, nested: nested.length, configNamed: configNamed.length, unchecked: found.truncated } };
}

/**
 * The mounts that make one entry unchangeable: the entry itself, and the repository folder a `gitdir:` file or a link
 * names when that lies in the workspace too. A link cannot be mounted over (bubblewrap would follow it), so only
 * what it names is; the run's end finds it retargeted if it was.
 */
function readOnlyEntry(root: string, entry: GitEntry): Mount[] {
  const mounts: Mount[] = entry.kind === 'link' ? [] : [{ kind: 'ro', path: entry.path }];
  if (entry.kind === 'file' || entry.kind === 'link') {
    const target = realDirectory(entry);
    // One inside a `.git` (a submodule's, in `.git/modules`) is covered by that `.git`'s own mount.
    if (target && isWithin(root, target) && target !== root && !isInsideDotGit(root, target)) mounts.push({ kind: 'ro', path: target });
  }
  return mounts;
}

/** The real folder a link names, or a `gitdir:` file's target (already read, without following links, by the walk). */
function realDirectory(entry: GitEntry): string | null {
  const named = entry.kind === 'file' ? entry.target : entry.path;
  if (!named) return null;
  try {
    return fs.statSync(named).isDirectory() ? fs.realpathSync(named) : null;
  } catch {
    return null;
  }
}

function isInsideDotGit(root: string, file: string): boolean {
  return path
    .relative(root, file)
    .split(path.sep)
    .some((part) => part.toLowerCase() === '.git');
}
