import { chmodSync, lstatSync, readdirSync, readFileSync, readlinkSync, type Stats } from 'node:fs';
import type { ObjectStore } from './object-store.js';
import { encodeTree, type TreeEntry } from './tree-format.js';

/** What one scan of a workspace gave: the root tree's id, what it could not keep, and its cost. */
export interface ScanResult {
  tree: string;
  /** Paths that are neither file, directory nor symlink (sockets, FIFOs, devices), or could not be read. */
  skipped: string[];
  files: number;
  /** Files whose bytes were read this scan (new or changed since the last). */
  hashed: number;
}

interface Seen {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  id: string;
}

/** A change within this many ms of a scan may share its timestamp with a later write: such a file is read again next time. */
const RACY_MS = 50;

/**
 * Scans a workspace into the store, incrementally: a file whose size, inode, mtime and ctime are as the last scan saw
 * them is not read again (racily recent ones are), so a step costs a `readdir` and an `lstat` per entry plus the bytes
 * of what changed. Symlinks are recorded as links and never followed: nothing outside the workspace is read.
 * `scan()` blocks until done; `scanInSlices()` does the same work a few ms at a time between the thread's other work.
 *
 * @example const scanner = createTreeScanner({ workspace, store, excluded }); const { tree } = scanner.scan();
 */
export function createTreeScanner(options: { workspace: string; store: ObjectStore; excluded: (path: string, isDir: boolean) => boolean }) {
  const { workspace, store, excluded } = options;
  let seen = new Map<string, Seen>();
  // Each folder's entries and tree id from the last scan: an unchanged folder is not encoded and hashed again.
  let folders = new Map<string, { entries: TreeEntry[]; id: string }>();

  /** The scan as a generator that pauses after each entry (`scan` runs it through, `scanInSlices` a few ms at a time). */
  function* scanSteps(): Generator<void, ScanResult> {
    const started = Date.now();
    const next = new Map<string, Seen>();
    const nextFolders = new Map<string, { entries: TreeEntry[]; id: string }>();
    const result = { skipped: [] as string[], files: 0, hashed: 0 };
    // Hard links: the first path of each file with more than one name, by device and inode, in scan order.
    const firstNames = new Map<string, string>();
    const linkOf = (rel: string, stat: Stats): string | undefined => {
      if (stat.nlink < 2) return undefined;
      const key = `${stat.dev}:${stat.ino}`;
      const first = firstNames.get(key);
      if (first === undefined) firstNames.set(key, rel);
      return first;
    };
    const fileId = (abs: string, rel: string, stat: Stats): string => {
      const old = seen.get(rel);
      if (old && old.size === stat.size && old.mtimeMs === stat.mtimeMs && old.ctimeMs === stat.ctimeMs && old.ino === stat.ino) {
        if (stat.ctimeMs < started - RACY_MS) next.set(rel, old);
        return old.id;
      }
      result.hashed++;
      const id = store.put(withOwnerAccess(abs, stat, 0o400, () => readFileSync(abs)));
      if (stat.ctimeMs < started - RACY_MS) next.set(rel, { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino, id });
      return id;
    };
    function* walk(abs: string, rel: string): Generator<void, string> {
      const entries: TreeEntry[] = [];
      for (const name of readdirSync(abs).sort()) {
        const childAbs = `${abs}/${name}`;
        const childRel = rel ? `${rel}/${name}` : name;
        let stat: Stats;
        try {
          stat = lstatSync(childAbs);
        } catch {
          continue; // gone between readdir and lstat
        }
        if (excluded(childRel, stat.isDirectory())) continue;
        try {
          if (stat.isFile()) {
            const link = linkOf(childRel, stat);
            const id = fileId(childAbs, childRel, stat);
            entries.push({ name, type: 'file', mode: stat.mode & 0o7777, id, size: stat.size, ...(link === undefined ? {} : { link }) });
            result.files++;
          } else if (stat.isSymbolicLink()) entries.push({ name, type: 'link', target: readlinkSync(childAbs) });
          else if (stat.isDirectory()) {
            const id = yield* withOwnerAccessWhile(childAbs, stat, 0o500, () => walk(childAbs, childRel));
            entries.push({ name, type: 'dir', mode: stat.mode & 0o7777, id });
          } else result.skipped.push(childRel);
        } catch {
          result.skipped.push(childRel);
        }
        yield;
      }
      const old = folders.get(rel);
      const id = old && sameEntries(old.entries, entries) && store.has(old.id) ? old.id : store.put(encodeTree(entries));
      nextFolders.set(rel, { entries, id });
      return id;
    }
    const tree = yield* walk(workspace, '');
    seen = next;
    folders = nextFolders;
    return { tree, ...result };
  }

  const scan = (): ScanResult => {
    const steps = scanSteps();
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  };

  /**
   * The same scan, run a slice of about `sliceMs` at a time from the next turn of the event loop on, so the caller's
   * thread goes on between slices (a run sends its next request and reads the reply while its workspace is scanned).
   * Nothing may write the workspace until it resolves; scans of one scanner must not overlap.
   */
  const scanInSlices = (sliceMs = 2): Promise<ScanResult> =>
    new Promise((resolve, reject) => {
      const steps = scanSteps();
      const slice = () => {
        const until = performance.now() + sliceMs;
        try {
          for (let count = 1; ; count++) {
            const step = steps.next();
            if (step.done) return resolve(step.value);
            // Reading the clock costs about as much as an entry: look at it every 8 entries.
            if (count % 8 === 0 && performance.now() >= until) break;
          }
        } catch (error) {
          return reject(error);
        }
        setImmediate(slice);
      };
      setImmediate(slice);
    });
  return { scan, scanInSlices };
}

function sameEntries(a: readonly TreeEntry[], b: readonly TreeEntry[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) {
    const x = a[index]!;
    const y = b[index]!;
    if (x.name !== y.name || x.type !== y.type) return false;
    if (x.type === 'link' ? x.target !== (y as typeof x).target : x.id !== (y as typeof x).id || x.mode !== (y as typeof x).mode) return false;
    if (x.type === 'file' && (x.size !== (y as typeof x).size || x.link !== (y as typeof x).link)) return false;
  }
  return true;
}

/**
 * Runs `read` with the owner's `bits` (read, search) granted when the agent took them from its own file or folder
 * (`chmod 000`, a folder without x), then puts the mode back: the snapshot holds what the mode hid, and the mode.
 */
function withOwnerAccess<T>(abs: string, stat: Stats, bits: number, read: () => T): T {
  const mode = stat.mode & 0o7777;
  if ((mode & bits) === bits || stat.uid !== process.getuid?.()) return read();
  chmodSync(abs, mode | bits);
  try {
    return read();
  } finally {
    chmodSync(abs, mode);
  }
}

/** `withOwnerAccess` around a generator: the mode is put back when it returns or throws. */
function* withOwnerAccessWhile<T>(abs: string, stat: Stats, bits: number, read: () => Generator<void, T>): Generator<void, T> {
  const mode = stat.mode & 0o7777;
  if ((mode & bits) === bits || stat.uid !== process.getuid?.()) return yield* read();
  chmodSync(abs, mode | bits);
  try {
    return yield* read();
  } finally {
    chmodSync(abs, mode);
  }
}
