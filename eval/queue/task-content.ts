import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';

/** One thing in a task folder, as hashed and packed: the executable bit is the only mode kept. */
export interface ContentEntry {
  /** Relative, `/`-separated. */
  path: string;
  kind: 'dir' | 'file' | 'symlink';
  executable: boolean;
  /** A symlink's target, as written. */
  target?: string;
}

/**
 * Every directory, regular file and symlink under `root`, sorted by path
 * (other kinds, like sockets, are left out). Async, so a worker hashing a
 * large task keeps renewing its job lock.
 *
 * @example const entries = await listContent('eval/suite/js-cart');
 */
export async function listContent(root: string): Promise<ContentEntry[]> {
  const entries: ContentEntry[] = [];
  const walk = async (relative: string): Promise<void> => {
    const names = (await readdir(join(root, relative))).sort();
    for (const name of names) {
      const path = relative ? `${relative}/${name}` : name;
      const stats = await lstat(join(root, path));
      if (stats.isSymbolicLink()) entries.push({ path, kind: 'symlink', executable: false, target: await readlink(join(root, path)) });
      else if (stats.isDirectory()) {
        entries.push({ path, kind: 'dir', executable: false });
        await walk(path);
      } else if (stats.isFile()) entries.push({ path, kind: 'file', executable: (stats.mode & 0o111) !== 0 });
    }
  };
  await walk('');
  return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * The content hash of a task: its id (the folder name results are keyed by)
 * and every entry's path, kind, executable bit and bytes or link target.
 * The coordinator and the worker compute it the same way, so a worker can
 * check that the folder it is about to run is the one the job names.
 *
 * @example const hash = await hashContent('js-cart', 'eval/suite/js-cart');
 */
export async function hashContent(
  id: string,
  root: string,
  entries?: readonly ContentEntry[],
  read: (path: string) => Promise<Buffer> = (path) => readFile(join(root, path)),
): Promise<string> {
  const hash = createHash('sha256').update(`rein-task-v1\0${id}\0`);
  for (const entry of entries ?? (await listContent(root))) {
    hash.update(`${entry.kind}\0${entry.path}\0${entry.executable ? 'x' : '-'}\0`);
    if (entry.kind === 'symlink') hash.update(`${entry.target}\0`);
    if (entry.kind === 'file')
      hash.update(
        `${createHash('sha256')
          .update(await read(entry.path))
          .digest('hex')}\0`,
      );
  }
  return hash.digest('hex');
}

/** The sha256 of a byte string, hex. */
export function sha256Hex(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}
