import type { ObjectStore } from './object-store.js';
import { SnapshotObjectError } from './object-store.js';

/**
 * One entry of a directory in a snapshot: a file (its blob; `link`: the workspace path of the first file, in scan
 * order, that is the same file, a hard link), a symlink (its target, never followed) or a directory (its tree).
 */
export type TreeEntry =
  | { name: string; type: 'file'; mode: number; id: string; size: number; link?: string }
  | { name: string; type: 'link'; target: string }
  | { name: string; type: 'dir'; mode: number; id: string };

/** An entry of a whole flattened tree, by its path relative to the workspace (`/`-separated). */
export type FlatEntry = TreeEntry extends infer Entry ? (Entry extends TreeEntry ? Omit<Entry, 'name'> & { path: string } : never) : never;

type Row = [string, 'f', number, string, number] | [string, 'f', number, string, number, string] | [string, 'l', string] | [string, 'd', number, string];

/** A directory's entries as the bytes of its tree object: sorted by name, so equal directories share one object. */
export function encodeTree(entries: readonly TreeEntry[]): string {
  const rows: Row[] = entries.map((entry) =>
    entry.type === 'file'
      ? entry.link === undefined
        ? [entry.name, 'f', entry.mode, entry.id, entry.size]
        : [entry.name, 'f', entry.mode, entry.id, entry.size, entry.link]
      : entry.type === 'link'
        ? [entry.name, 'l', entry.target]
        : [entry.name, 'd', entry.mode, entry.id],
  );
  return JSON.stringify({ tree: 1, rows });
}

const HASH = /^[0-9a-f]{64}$/;

/** A name a restore may create: one path component, never `.`, `..`, empty, with a slash or NUL, or `.git` (the store is read as hostile). */
function isSafeName(name: unknown): name is string {
  return typeof name === 'string' && name !== '' && name !== '.' && name !== '..' && !/[/\0]/.test(name) && name.toLowerCase() !== '.git';
}

/** A tree object read back, every row checked: a bad name, type, mode or id is an error, never a path to write. */
function decodeTree(bytes: Buffer, id: string): TreeEntry[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new SnapshotObjectError(`object ${id} is not a tree`);
  }
  const rows = (parsed as { rows?: unknown }).rows;
  if (!Array.isArray(rows)) throw new SnapshotObjectError(`object ${id} is not a tree`);
  return rows.map((row: unknown) => decodeRow(row, id));
}

function decodeRow(row: unknown, id: string): TreeEntry {
  const bad = () => new SnapshotObjectError(`tree ${id} has a bad entry: ${JSON.stringify(row).slice(0, 120)}`);
  if (!Array.isArray(row) || !isSafeName(row[0])) throw bad();
  const [name, type, a, b, c, link] = row as unknown[];
  const mode = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0o7777;
  if (type === 'f' && mode(a) && typeof b === 'string' && HASH.test(b) && typeof c === 'number') {
    if (link === undefined) return { name: name as string, type: 'file', mode: a as number, id: b, size: c };
    if (typeof link === 'string' && link.split('/').every(isSafeName)) return { name: name as string, type: 'file', mode: a as number, id: b, size: c, link };
  }
  if (type === 'l' && typeof a === 'string' && a !== '' && !a.includes('\0')) return { name: name as string, type: 'link', target: a };
  if (type === 'd' && mode(a) && typeof b === 'string' && HASH.test(b)) return { name: name as string, type: 'dir', mode: a as number, id: b };
  throw bad();
}

/**
 * Every entry of the tree `root` by path, parents before children.
 *
 * @example for (const [path, entry] of flattenTree(store, tree)) console.log(path, entry.type);
 */
export function flattenTree(store: ObjectStore, root: string): Map<string, FlatEntry> {
  const out = new Map<string, FlatEntry>();
  const walk = (id: string, prefix: string) => {
    for (const entry of decodeTree(store.get(id), id)) {
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      const { name: _name, ...rest } = entry;
      out.set(path, { ...rest, path });
      if (entry.type === 'dir') walk(entry.id, path);
    }
  };
  walk(root, '');
  return out;
}

/**
 * Every object a tree names, itself included: its folder trees and its files' blobs, each tree read once (`seen` is
 * shared across calls, so many snapshots of one workspace cost each folder once). A missing or damaged tree is
 * counted in `broken`, never thrown: what it names cannot be known.
 *
 * @example const seen = new Set<string>(); const broken = { count: 0 }; treeObjects(store, tree, seen, broken);
 */
export function treeObjects(store: ObjectStore, root: string, seen: Set<string>, broken: { count: number }): void {
  const stack = [root];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    let entries: TreeEntry[];
    try {
      entries = decodeTree(store.get(id), id);
    } catch {
      broken.count++;
      continue;
    }
    for (const entry of entries) {
      if (entry.type === 'file') seen.add(entry.id);
      else if (entry.type === 'dir') stack.push(entry.id);
    }
  }
}
