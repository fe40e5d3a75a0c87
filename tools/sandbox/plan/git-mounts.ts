import fs from 'node:fs';
import path from 'node:path';
import type { Mount } from './visibility.js';

/** What git reads as configuration or runs as code, below `.git`: read-only in the sandbox. */
const GIT_CODE_PATHS = ['config', 'config.worktree', 'modules'];

/**
 * The workspace repository's `.git`, so that nothing a command does there runs on the host at the user's next git
 * command: its configuration (`core.fsmonitor`, `core.hooksPath`, aliases, filter drivers, `core.pager`, …) and its
 * hooks are read-only (a missing hooks folder is an empty read-only one), and `.git` itself is a mount point, so it
 * cannot be moved aside and replaced by one the agent wrote. Objects, refs and the index stay writable: `git add`,
 * `git commit`, `git stash`, `git checkout` work. Nothing when the workspace has no `.git` folder (a worktree's
 * `.git` file points at a folder outside the workspace, which commands do not see).
 *
 * @example gitMounts('/w/repo') // [{ kind: 'rw', path: '/w/repo/.git' }, { kind: 'ro-try', path: '/w/repo/.git/config' }, …]
 */
export function gitMounts(root: string): Mount[] {
  const git = path.join(root, '.git');
  if (!fs.lstatSync(git, { throwIfNoEntry: false })?.isDirectory()) return [];
  const hooks = path.join(git, 'hooks');
  const hooksExist = fs.lstatSync(hooks, { throwIfNoEntry: false })?.isDirectory() ?? false;
  return [
    { kind: 'rw', path: git },
    ...GIT_CODE_PATHS.map((name): Mount => ({ kind: 'ro-try', path: path.join(git, name) })),
    hooksExist ? { kind: 'ro', path: hooks } : { kind: 'mask', path: hooks, directory: true },
  ];
}
