import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { realKey, writePrivateJson } from '../../lib/state/state-records.js';
import { userStateDir } from '../../lib/state/user-state-dir.js';

/** Where snapshot objects are kept unless a run names another store: the user state dir, which no sandbox shows. */
export function defaultSnapshotStore(env: NodeJS.ProcessEnv = process.env): string {
  return join(userStateDir(env), 'snapshots');
}

/** The store's list of the runs that keep snapshots in it: one small file per run, beside the objects. */
const runsDir = (store: string) => join(resolve(store), 'runs');
const fileOf = (store: string, runDir: string) => join(runsDir(store), `${createHash('sha256').update(runDir).digest('hex').slice(0, 32)}.json`);

function readRunDir(file: string): string | null {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as { runDir?: unknown };
    return typeof value.runDir === 'string' ? value.runDir : null;
  } catch {
    return null;
  }
}

/**
 * Notes that `runDir` keeps snapshots in `store`: the store holds objects of many runs, in many workspaces, and only
 * this list says which runs those are. Cheap when the run is listed already (one small read).
 *
 * @example registerSnapshotRun(runDir, storeRoot);
 */
export function registerSnapshotRun(runDir: string, store: string): void {
  const key = realKey(runDir);
  const file = fileOf(store, key);
  if (existsSync(file) && readRunDir(file) === key) return;
  mkdirSync(runsDir(store), { recursive: true, mode: 0o700 });
  writePrivateJson(file, { runDir: key });
}

/** The runs listed in `store`. */
export function snapshotRunsOf(store: string): Array<{ runDir: string }> {
  const dir = runsDir(store);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => readRunDir(join(dir, name)))
    .filter((runDir): runDir is string => runDir !== null)
    .map((runDir) => ({ runDir }));
}

/** Takes a run off the store's list (its run directory is gone, or it is past the retention). */
export function forgetSnapshotRun(store: string, runDir: string): void {
  rmSync(fileOf(store, runDir), { force: true });
}
