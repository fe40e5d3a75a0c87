import fs from 'node:fs';
import path from 'node:path';
import type { HiddenMatcher } from './hidden-paths.js';

/** Entries looked at before the walk gives up on a folder (a home directory with millions of files). */
const MAX_WALKED_ENTRIES = 300_000;

interface HiddenEntry {
  path: string;
  directory: boolean;
}

interface HiddenWalk {
  found: HiddenEntry[];
  /** True when MAX_WALKED_ENTRIES was reached before the walk ended. */
  truncated: boolean;
}

/**
 * Every file and folder below `dir` that `matcher` hides (a hidden folder is
 * listed once, not its contents). Symlinks are not followed; `.git` is not
 * entered (its objects are not named by the user).
 *
 * @example findHidden('/w/repo', matcher).found // [{ path: '/w/repo/.env', directory: false }]
 */
export function findHidden(dir: string, matcher: HiddenMatcher, budget = MAX_WALKED_ENTRIES): HiddenWalk {
  const found: HiddenEntry[] = [];
  let seen = 0;
  const stack = [dir];
  while (stack.length > 0) {
    const current = stack.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(current, { withFileTypes: true });
    } catch {
      continue; // unreadable: commands cannot read it either
    }
    for (const entry of entries) {
      if (++seen > budget) return { found, truncated: true };
      const full = path.join(current, entry.name);
      const directory = entry.isDirectory();
      if (!directory && !entry.isFile()) continue;
      if (matcher.reason(full, directory) !== null) found.push({ path: full, directory });
      else if (directory && entry.name !== '.git') stack.push(full);
    }
  }
  return { found, truncated: false };
}
