import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { userStateDir } from '../../lib/state/user-state-dir.js';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = fs.constants;

/** The name of one of rein's temporary files: `.<target>.<12 hex>.rein-tmp` beside its target. */
const TEMP_FILE_NAME = /^\..+\.[0-9a-f]{12}\.rein-tmp$/;

/** An entry: `<writer pid>-<its start time>-<random>`, holding `<real directory>\0<temporary file's name>`. */
const ENTRY_NAME = /^(\d+)-(\d+)-[0-9a-f]{8}$/;

/**
 * rein's temporary files in flight, recorded in the user's state dir (outside every workspace, invisible in the
 * sandbox) from before each is created until it is renamed into place. A writer killed with SIGKILL in between leaves
 * its entry behind, and `removeLeftoverTempFiles` (at the start of every run) removes exactly the files so recorded:
 * never a file of someone else that merely has a similar name, never a file of a writer still running.
 *
 * Returns the function that ends the record (call it after the rename, or after removing the file on an error); a
 * state dir that cannot be written leaves the write unrecorded rather than failing it.
 *
 * @example const done = recordTempFile(dirFd, '.app.py.0a1b2c3d4e5f.rein-tmp'); …write, rename…; done();
 */
export function recordTempFile(dirFd: number, name: string, env: NodeJS.ProcessEnv = process.env): () => void {
  try {
    const dir = journalDir(env);
    const entry = path.join(dir, `${process.pid}-${ownStartTime()}-${randomBytes(4).toString('hex')}`);
    fs.writeFileSync(entry, `${fs.readlinkSync(`/proc/self/fd/${dirFd}`)}\0${name}`, { flag: 'wx', mode: 0o600 });
    return () => fs.rmSync(entry, { force: true });
  } catch {
    return () => undefined;
  }
}

/**
 * Removes the temporary files that writers now gone left in flight (see `recordTempFile`), and their entries; returns
 * the files removed. The file is removed only where it still is what rein made: a regular file under the recorded
 * name, in the recorded directory opened no-follow and checked to be that directory.
 *
 * @example removeLeftoverTempFiles() // ['/repo/src/.app.py.0a1b2c3d4e5f.rein-tmp']
 */
export function removeLeftoverTempFiles(env: NodeJS.ProcessEnv = process.env): string[] {
  let dir: string;
  let entries: string[];
  try {
    dir = journalDir(env);
    entries = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const entry of entries) {
    const owner = ENTRY_NAME.exec(entry);
    if (owner === null || writerRunning(Number(owner[1]), owner[2]!)) continue;
    const file = removeRecorded(path.join(dir, entry));
    if (file !== null) removed.push(file);
    fs.rmSync(path.join(dir, entry), { force: true });
  }
  return removed;
}

function removeRecorded(entry: string): string | null {
  let text: string;
  try {
    text = fs.readFileSync(entry, 'utf8');
  } catch {
    return null;
  }
  const [folder, name, ...rest] = text.split('\0');
  if (!folder || !name || rest.length > 0 || !path.isAbsolute(folder) || !TEMP_FILE_NAME.test(name) || name.includes('/')) return null;
  let fd: number;
  try {
    fd = fs.openSync(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    // A directory above it swapped for a link since: not the folder rein wrote in.
    if (fs.readlinkSync(`/proc/self/fd/${fd}`) !== folder) return null;
    const at = `/proc/self/fd/${fd}/${name}`;
    if (!fs.lstatSync(at, { throwIfNoEntry: false })?.isFile()) return null;
    fs.rmSync(at);
    return path.join(folder, name);
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

const dirs = new Map<string, string>();

function journalDir(env: NodeJS.ProcessEnv): string {
  const key = `${env.XDG_STATE_HOME ?? ''}\0${env.HOME ?? ''}`;
  let dir = dirs.get(key);
  if (dir === undefined) {
    dir = path.join(userStateDir(env), 'temp-files');
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    dirs.set(key, dir);
  }
  return dir;
}

let startTime: string | undefined;

/** This process's start time in clock ticks since boot: with the pid, it names this process and no later one. */
function ownStartTime(): string {
  startTime ??= startTimeOf(process.pid) ?? '0';
  return startTime;
}

function startTimeOf(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function writerRunning(pid: number, started: string): boolean {
  return startTimeOf(pid) === started;
}
