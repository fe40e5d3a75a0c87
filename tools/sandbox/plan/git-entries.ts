import fs from 'node:fs';
import path from 'node:path';

/** Entries looked at before the walk gives up (a workspace with millions of files). */
const MAX_WALKED_ENTRIES = 300_000;

/**
 * Something in the workspace git would take for a repository: a `.git` folder, a `.git` file that points git at one
 * (`gitdir: <path>`), a `.git` symlink, or a folder shaped like a bare repository (`HEAD`, `objects/`, `refs/`).
 */
export interface GitEntry {
  path: string;
  kind: 'dir' | 'file' | 'link' | 'bare';
  /** For a file, the folder it points at; for a link, what it names (absent when it names none). */
  target?: string;
}

/**
 * Every `.git` below `root`, at any depth, and every bare-repository-shaped folder: the repository's own and any nested
 * one (a submodule's checkout, a vendored repository, one the agent made). Git reads configuration, hooks and
 * attributes from each and runs what they name, so each is something the host would run. Symlinks are not followed,
 * and a `.git` is not entered. (`.GIT` counts: on a case-insensitive file system it is `.git`.)
 *
 * @example findGitEntries('/w/repo').entries // [{ path: '/w/repo/.git', kind: 'dir' }, { path: '/w/repo/vendor/x/.git', kind: 'file', target: '/w/repo/.git/modules/x' }]
 */
export function findGitEntries(root: string, budget = MAX_WALKED_ENTRIES): { entries: GitEntry[]; truncated: boolean } {
  const entries: GitEntry[] = [];
  let seen = 0;
  const stack = [root];
  while (stack.length > 0) {
    const current = stack.pop()!;
    let children: fs.Dirent[];
    try {
      children = fs.readdirSync(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const child of children) {
      if (++seen > budget) return { entries, truncated: true };
      const full = path.join(current, child.name);
      if (child.name.toLowerCase() === '.git') {
        if (child.isDirectory()) entries.push({ path: full, kind: 'dir' });
        else if (child.isFile()) entries.push({ path: full, kind: 'file', ...targetOf(full) });
        else if (child.isSymbolicLink()) entries.push({ path: full, kind: 'link', target: linkTarget(full) });
      } else if (child.isDirectory()) stack.push(full);
    }
    if (current !== root && looksBare(children)) entries.push({ path: current, kind: 'bare' });
  }
  return { entries, truncated: false };
}

/** git takes a folder holding `HEAD`, `objects/` and `refs/` for a bare repository when a command runs inside it. */
function looksBare(children: fs.Dirent[]): boolean {
  const has = (name: string, directory: boolean) => children.some((child) => child.name === name && (directory ? child.isDirectory() : !child.isDirectory()));
  return has('HEAD', false) && has('objects', true) && has('refs', true);
}

function linkTarget(link: string): string | undefined {
  try {
    return fs.readlinkSync(link);
  } catch {
    return undefined;
  }
}

/** The folder a `.git` file points at (`gitdir: <path>`, relative to the file's folder), if it names one. */
function targetOf(file: string): { target?: string } {
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    try {
      const buffer = Buffer.alloc(4096);
      const text = buffer.subarray(0, fs.readSync(fd, buffer, 0, buffer.length, 0)).toString('utf8');
      const named = /^gitdir:\s*(.+?)\s*$/m.exec(text)?.[1];
      return named ? { target: path.resolve(path.dirname(file), named) } : {};
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return {};
  }
}
