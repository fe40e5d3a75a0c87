import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A cgroup of the `pids` controller that holds one sandbox: a child of the harness's own cgroup, named
 * `rein-<harness pid>-<random>`, with `pids.max` set. It is the only process-count limit that binds root (the kernel
 * does not apply RLIMIT_NPROC to uid 0, in a user namespace or not), so rein makes one wherever it may: cgroup v1's
 * `pids` hierarchy, or cgroup v2 where the harness's cgroup already hands `pids` to its children.
 */
export interface PidsCgroup {
  readonly dir: string;
  /** `argv` run so that its process joins the cgroup before it execs (everything it starts is then inside). */
  wrap(argv: readonly string[]): string[];
  /** Whether a process is in it now (the join worked). */
  holdsProcesses(): boolean;
  /** How many forks the limit has refused so far. */
  refusals(): number;
  /** Removes the cgroup once it is empty (it empties as the sandbox's last processes are reaped); retried briefly. */
  remove(): void;
}

const PREFIX = 'rein-';
/** The join, then the exec: a failed join leaves the sandbox without this limit, which `holdsProcesses` tells. */
const JOIN = 'echo 0 > "$0/cgroup.procs" 2>/dev/null; exec "$@"';

/**
 * A new pids cgroup limited to `max` tasks, or null where rein cannot make one (no pids controller, not
 * writable: an ordinary user's session). Empty cgroups of earlier harnesses that died without removing theirs are
 * removed first (only `rein-<pid>-…` whose process is gone; an empty cgroup is all rmdir can remove).
 *
 * @example const cgroup = createPidsCgroup(1024); spawn(...(cgroup ? cgroup.wrap(argv) : argv));
 */
export function createPidsCgroup(max: number): PidsCgroup | null {
  const parent = ownPidsCgroup();
  if (parent === null) return null;
  removeStale(parent);
  const dir = path.join(parent, `${PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    fs.mkdirSync(dir);
  } catch {
    return null;
  }
  try {
    fs.writeFileSync(path.join(dir, 'pids.max'), String(max));
  } catch {
    // A v2 cgroup whose parent does not delegate pids has no pids.max.
    rmdirQuietly(dir);
    return null;
  }
  return {
    dir,
    wrap: (argv) => ['/bin/sh', '-c', JOIN, dir, ...argv],
    holdsProcesses: () => readOr(path.join(dir, 'cgroup.procs'), '').trim() !== '',
    refusals: () => Number(/^max (\d+)$/m.exec(readOr(path.join(dir, 'pids.events'), ''))?.[1] ?? 0),
    remove: () => removeWhenEmpty(dir, 20),
  };
}

/** The folder of the harness's own cgroup in a pids hierarchy it can write, or null. */
function ownPidsCgroup(): string | null {
  const memberships = readOr('/proc/self/cgroup', '');
  for (const mount of readOr('/proc/self/mountinfo', '').split('\n').map(parseMount)) {
    if (mount === null) continue;
    const member = memberships.split('\n').find((line) => (mount.v2 ? line.startsWith('0::') : /^\d+:([^:]*):/.exec(line)?.[1]?.split(',').includes('pids')));
    if (member === undefined) continue;
    const within = path.posix.relative(mount.root, member.slice(member.indexOf(':', member.indexOf(':') + 1) + 1));
    if (within.startsWith('..')) continue;
    const dir = path.join(mount.point, within);
    if (mount.v2 && !readOr(path.join(dir, 'cgroup.subtree_control'), '').split(/\s+/).includes('pids')) continue;
    try {
      fs.accessSync(dir, fs.constants.W_OK);
      return dir;
    } catch {
      /* not ours to write */
    }
  }
  return null;
}

/** A cgroup mount from a mountinfo line: v1 with the pids controller, or v2. */
function parseMount(line: string): { root: string; point: string; v2: boolean } | null {
  const [before, after] = line.split(' - ');
  if (!before || !after) return null;
  const fields = before.split(' ');
  const [type, , options] = after.split(' ');
  const root = fields[3];
  const point = fields[4];
  if (!root || !point) return null;
  if (type === 'cgroup2') return { root, point, v2: true };
  if (type === 'cgroup' && options?.split(',').includes('pids')) return { root, point, v2: false };
  return null;
}

function removeStale(parent: string): void {
  let entries: string[];
  try {
    entries = fs.readdirSync(parent);
  } catch {
    return;
  }
  for (const entry of entries) {
    const owner = new RegExp(`^${PREFIX}(\\d+)-[0-9a-f]{8}$`).exec(entry)?.[1];
    if (owner !== undefined && !processExists(Number(owner))) rmdirQuietly(path.join(parent, entry));
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function removeWhenEmpty(dir: string, triesLeft: number): void {
  if (rmdirQuietly(dir) || triesLeft === 0) return;
  setTimeout(() => removeWhenEmpty(dir, triesLeft - 1), 50).unref();
}

function rmdirQuietly(dir: string): boolean {
  try {
    fs.rmdirSync(dir);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

function readOr(file: string, fallback: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
}
