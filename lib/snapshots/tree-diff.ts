import type { FlatEntry } from './tree-format.js';

/** How one tree differs from another, path by path (directories only when they appear, go, or change mode). */
export interface TreeDiff {
  added: string[];
  deleted: string[];
  modified: string[];
}

/**
 * What turning `from` into `to` changes: paths only in `to` are added, only in `from` deleted, in both with another
 * type, content, mode or link target modified.
 *
 * @example const { added, deleted, modified } = diffTrees(before, after);
 */
export function diffTrees(from: ReadonlyMap<string, FlatEntry>, to: ReadonlyMap<string, FlatEntry>): TreeDiff {
  const diff: TreeDiff = { added: [], deleted: [], modified: [] };
  for (const [path, entry] of to) {
    const old = from.get(path);
    if (!old) diff.added.push(path);
    else if (!sameEntry(old, entry)) diff.modified.push(path);
  }
  for (const path of from.keys()) if (!to.has(path)) diff.deleted.push(path);
  return diff;
}

/** Whether two entries are the same on disk (a directory's own contents are compared entry by entry, not here). */
export function sameEntry(a: FlatEntry, b: FlatEntry): boolean {
  if (a.type !== b.type) return false;
  if (a.type === 'link' || b.type === 'link') return a.type === 'link' && b.type === 'link' && a.target === b.target;
  if (a.type === 'dir' || b.type === 'dir') return a.mode === b.mode;
  return a.id === b.id && a.mode === b.mode && a.link === b.link;
}

/** The diff in a few lines: counts, then up to `limit` paths of each kind. */
export function describeDiff(diff: TreeDiff, limit = 20): string[] {
  const lines = [`${diff.added.length} added, ${diff.modified.length} modified, ${diff.deleted.length} deleted`];
  const list = (mark: string, paths: string[]) => {
    for (const path of paths.slice(0, limit)) lines.push(`  ${mark} ${path}`);
    if (paths.length > limit) lines.push(`  ${mark} … and ${paths.length - limit} more`);
  };
  list('+', diff.added);
  list('~', diff.modified);
  list('-', diff.deleted);
  return lines;
}

/** The diff as counts: `+2 ~1 -0`. */
export function describeDiffCounts(diff: TreeDiff): string {
  return `+${diff.added.length} ~${diff.modified.length} -${diff.deleted.length}`;
}
