import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, utimesSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** Raised when an object is missing or its bytes no longer hash to its name (a damaged or tampered store). */
export class SnapshotObjectError extends Error {
  override name = 'SnapshotObjectError';
}

const HASH = /^[0-9a-f]{64}$/;

/**
 * A content-addressed store of byte objects (sha256, hex), one file each under `<root>/objects/ab/cdef…`. It lives
 * outside every workspace (by default in the user state dir, which the sandbox never shows), so nothing a command
 * writes can change a snapshot. Objects are written to a temp file and renamed into place: a kill leaves an object
 * whole or absent, never half. Every read checks the bytes against the name.
 *
 * @example const store = openObjectStore('/home/me/.local/state/rein/snapshots'); const id = store.put(Buffer.from('x'));
 */
export function openObjectStore(root: string) {
  const objects = join(root, 'objects');
  const temp = join(root, 'tmp');
  mkdirSync(objects, { recursive: true, mode: 0o700 });
  mkdirSync(temp, { recursive: true, mode: 0o700 });
  // Objects known to be on disk: a step looks each changed one up once, the unchanged ones never.
  const known = new Set<string>();
  // The fan-out folders there already, read once: making one that exists costs a failing system call per object.
  const madeDirs = new Set<string>(readdirSync(objects).map((name) => join(objects, name)));
  let written = 0;
  let tempCounter = 0;
  const pathOf = (id: string) => join(objects, id.slice(0, 2), id.slice(2));

  // An object found on disk is touched the first time this process uses it: \`rein snapshots gc\` never removes an
  // object younger than its grace period, so one a scan under way reuses (not yet named by an index line) stays.
  const has = (id: string): boolean => {
    if (known.has(id)) return true;
    // Most objects asked about are new (a step's chart state, a changed file): a stat that does not throw says so.
    if (statSync(pathOf(id), { throwIfNoEntry: false }) === undefined) return false;
    const now = new Date();
    try {
      utimesSync(pathOf(id), now, now);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      // A store this user may read but not change (EPERM, EROFS): the object is there.
    }
    known.add(id);
    return true;
  };

  const put = (bytes: Buffer | string, options: { fsync?: boolean } = {}): string => {
    const id = createHash('sha256').update(bytes).digest('hex');
    if (has(id)) return id;
    const dir = join(objects, id.slice(0, 2));
    if (!madeDirs.has(dir)) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      madeDirs.add(dir);
    }
    const tempPath = join(temp, `${process.pid}-${tempCounter++}`);
    const fd = openSync(tempPath, 'w', 0o600);
    try {
      writeSync(fd, typeof bytes === 'string' ? Buffer.from(bytes) : bytes);
      if (options.fsync) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tempPath, pathOf(id));
    known.add(id);
    written += typeof bytes === 'string' ? Buffer.byteLength(bytes) : bytes.length;
    return id;
  };

  const get = (id: string): Buffer => {
    if (!HASH.test(id)) throw new SnapshotObjectError(`not an object name: ${JSON.stringify(id).slice(0, 80)}`);
    let bytes: Buffer;
    try {
      bytes = readFileSync(pathOf(id));
    } catch {
      throw new SnapshotObjectError(`object ${id} is missing from the snapshot store ${root}`);
    }
    if (createHash('sha256').update(bytes).digest('hex') !== id)
      throw new SnapshotObjectError(`object ${id} in ${root} is damaged (its bytes do not match its name)`);
    return bytes;
  };

  return {
    root,
    put,
    get,
    has,
    /** Bytes of new objects written by this store since it was opened. */
    bytesWritten: () => written,
  };
}

export type ObjectStore = ReturnType<typeof openObjectStore>;
