import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { homedir, hostname, tmpdir } from 'node:os';
import { join } from 'node:path';

const TEMP_PREFIX = 'rein-worker-';
/** Cached tasks and rules files unused this long are removed when a worker starts. */
const CACHE_KEEP_MS = 14 * 24 * 3600 * 1000;

/** Where a worker caches tasks by default: `$XDG_CACHE_HOME/rein` or `~/.cache/rein`. */
export function defaultCacheDir(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'rein');
}

/**
 * The worker's own temp dir (run directories and, through TMPDIR, the runs'
 * workspaces), marked with its pid. Dirs left by workers on this machine
 * that were killed are removed first: nobody else would.
 *
 * @example const temp = await createWorkerTemp(); … await temp.dispose();
 */
export async function createWorkerTemp(): Promise<{ root: string; dispose(): Promise<void> }> {
  await removeOrphans();
  const root = await mkdtemp(join(tmpdir(), TEMP_PREFIX));
  await writeFile(join(root, 'owner.json'), JSON.stringify({ host: hostname(), pid: process.pid }) + '\n');
  return { root, dispose: () => rm(root, { recursive: true, force: true }) };
}

async function removeOrphans(): Promise<void> {
  for (const name of await readdir(tmpdir()).catch(() => [] as string[])) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    const dir = join(tmpdir(), name);
    const owner = await readFile(join(dir, 'owner.json'), 'utf8').then(
      (text) => JSON.parse(text) as { host?: string; pid?: number },
      () => null,
    );
    if (owner?.host === hostname() && typeof owner.pid === 'number' && !isAlive(owner.pid)) await rm(dir, { recursive: true, force: true });
  }
}

/** Removes cache entries no job has used for two weeks, and staging dirs a killed worker left. */
export async function pruneCache(cache: string): Promise<void> {
  const now = Date.now();
  for (const kind of ['tasks', 'files']) {
    const dir = join(cache, kind);
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const path = join(dir, name);
      const age =
        now -
        (await stat(path).then(
          (stats) => stats.mtimeMs,
          () => now,
        ));
      if (age > CACHE_KEEP_MS || (name.startsWith('.tmp-') && age > 3600_000)) await rm(path, { recursive: true, force: true });
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
