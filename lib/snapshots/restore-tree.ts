import { chmodSync, closeSync, linkSync, lstatSync, mkdirSync, openSync, renameSync, rmdirSync, rmSync, symlinkSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ObjectStore } from './object-store.js';
import { sameEntry } from './tree-diff.js';
import type { FlatEntry } from './tree-format.js';

/** What a restore did, and what it could not do (each with its reason). */
export interface RestoreReport {
  written: number;
  removed: number;
  failed: { path: string; reason: string }[];
}

/**
 * Makes the folder `root` hold exactly the tree `target` (apart from excluded paths, which are absent from both maps
 * and never touched), given what it holds now (`current`, from a fresh scan). Nothing is followed: an entry in the
 * way is removed (a symlink as a link), every parent is checked to be a real directory before anything is written
 * below it, and files and links are written beside their place and renamed over it, so a symlink planted at a path
 * is replaced, never written through. Files that were hard links to each other are made so again (a link to the
 * first name, once that name is restored). Directory modes are set last, deepest first.
 *
 * @example const report = restoreTree({ root, store, target, current });
 */
export function restoreTree(options: {
  root: string;
  store: ObjectStore;
  target: ReadonlyMap<string, FlatEntry>;
  current: ReadonlyMap<string, FlatEntry>;
}): RestoreReport {
  const { root, store, target, current } = options;
  const report: RestoreReport = { written: 0, removed: 0, failed: [] };
  const attempt = (path: string, action: () => void) => {
    try {
      action();
    } catch (error) {
      report.failed.push({ path, reason: (error as Error).message });
    }
  };
  // Deepest first: what is not in the target, or is there as another type, goes.
  const removals = [...current.values()].filter((entry) => {
    const wanted = target.get(entry.path);
    return !wanted || wanted.type !== entry.type;
  });
  for (const entry of removals.sort((a, b) => depth(b.path) - depth(a.path))) {
    attempt(entry.path, () => {
      const parent = join(root, parentOf(entry.path));
      if (lstatSync(parent).isDirectory()) chmodSync(parent, (lstatSync(parent).mode & 0o7777) | 0o700);
      removeEntry(join(root, entry.path), entry.type === 'dir');
      report.removed++;
    });
  }
  const realDirs = new Set<string>(['']);
  // Files that are as the target has them (hard links are made to these only), and those written anew (new inodes).
  const settled = new Set<string>();
  const rewritten = new Set<string>();
  let counter = 0;
  for (const entry of target.values()) {
    const now = current.get(entry.path);
    // A hard link whose first name was written anew points at the old file: it is made again.
    const relink = entry.type === 'file' && entry.link !== undefined && rewritten.has(entry.link);
    if (now && now.type === entry.type && sameEntry(now, entry) && entry.type !== 'dir' && !relink) {
      settled.add(entry.path);
      continue;
    }
    attempt(entry.path, () => {
      ensureRealParents(root, entry.path, realDirs);
      const abs = join(root, entry.path);
      if (entry.type === 'dir') {
        ensureDirectory(abs);
        realDirs.add(entry.path);
        return;
      }
      const temp = join(root, parentOf(entry.path), `.rein-restore-${process.pid}-${counter++}`);
      if (entry.type === 'link') symlinkSync(entry.target, temp);
      else if (entry.link !== undefined && linkable(entry, { root, target, settled })) linkSync(join(root, entry.link), temp);
      else writeFileNoFollow(temp, store.get(entry.id), entry.mode);
      renameSync(temp, abs);
      // Renaming a name of a file over another name of the same file does nothing: the temp name is left.
      if (lstatSync(temp, { throwIfNoEntry: false })) unlinkSync(temp);
      if (entry.type === 'file') {
        settled.add(entry.path);
        rewritten.add(entry.path);
      }
      report.written++;
    });
  }
  const dirs = [...target.values()].filter((entry) => entry.type === 'dir').sort((a, b) => depth(b.path) - depth(a.path));
  for (const dir of dirs) attempt(dir.path, () => chmodSync(join(root, dir.path), dir.mode));
  return report;
}

/**
 * Whether a file can be made a hard link to its first name: that name is a file of the target with the same bytes
 * and mode, already as the target has it in this restore, and a regular file on disk (never a link followed).
 */
function linkable(
  entry: Extract<FlatEntry, { type: 'file' }>,
  context: { root: string; target: ReadonlyMap<string, FlatEntry>; settled: Set<string> },
): boolean {
  const first = context.target.get(entry.link!);
  if (first?.type !== 'file' || first.id !== entry.id || first.mode !== entry.mode || !context.settled.has(entry.link!)) return false;
  return lstatSync(join(context.root, entry.link!), { throwIfNoEntry: false })?.isFile() === true;
}

const depth = (path: string) => path.split('/').length;
const parentOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');

/** A file, link or directory removed without following links; a directory that still holds excluded entries stays. */
function removeEntry(abs: string, isDir: boolean): void {
  const stat = lstatSync(abs, { throwIfNoEntry: false });
  if (!stat) return;
  if (!stat.isDirectory()) {
    unlinkSync(abs);
    return;
  }
  if (!isDir) {
    rmSync(abs, { recursive: true, force: true });
    return;
  }
  chmodSync(abs, 0o700);
  try {
    rmdirSync(abs);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTEMPTY') throw new Error('kept: it holds excluded files the snapshot does not cover');
    throw error;
  }
}

/** Every folder on the way to `path` is a real directory inside the root (a symlink or file there is an error, never followed). */
function ensureRealParents(root: string, path: string, realDirs: Set<string>): void {
  const parts = path.split('/');
  let rel = '';
  for (const part of parts.slice(0, -1)) {
    rel = rel ? `${rel}/${part}` : part;
    if (realDirs.has(rel)) continue;
    const stat = lstatSync(join(root, rel), { throwIfNoEntry: false });
    if (!stat) mkdirSync(join(root, rel), { mode: 0o755 });
    else if (!stat.isDirectory()) throw new Error(`${rel} is not a directory`);
    else chmodSync(join(root, rel), (stat.mode & 0o7777) | 0o700);
    realDirs.add(rel);
  }
}

function ensureDirectory(abs: string): void {
  const stat = lstatSync(abs, { throwIfNoEntry: false });
  if (stat?.isDirectory()) {
    chmodSync(abs, (stat.mode & 0o7777) | 0o700);
    return;
  }
  if (stat) unlinkSync(abs);
  mkdirSync(abs, { mode: 0o700 });
}

function writeFileNoFollow(path: string, bytes: Buffer, mode: number): void {
  // O_EXCL: the temp name is fresh; if something is there, it is not ours to write through.
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
  chmodSync(path, mode);
}
