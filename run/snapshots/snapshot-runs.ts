import { join, resolve } from 'node:path';
import { realKey, stateRecords } from '../../lib/state/state-records.js';
import { userStateDir } from '../../lib/state/user-state-dir.js';

/** Where snapshot objects are kept unless a run names another store: the user state dir, which no sandbox shows. */
export function defaultSnapshotStore(env: NodeJS.ProcessEnv = process.env): string {
  return join(userStateDir(env), 'snapshots');
}

/** A run that keeps snapshots in a store: what `rein snapshots gc` keeps objects for. */
interface SnapshotRunRecord {
  runDir: string;
  store: string;
}

/** The user's list of runs with snapshots, one small file per run in the state dir (records whose run is gone go daily). */
const runs = () => stateRecords<SnapshotRunRecord>('snapshot-runs');

/**
 * Notes that `runDir` keeps snapshots in `store`: the store holds objects of many runs, in many workspaces, and only
 * this list says which runs those are. Cheap when the run is listed already (one small read).
 *
 * @example registerSnapshotRun(runDir, storeRoot);
 */
export function registerSnapshotRun(runDir: string, store: string): void {
  const key = realKey(runDir);
  const records = runs();
  const known = records.get(key);
  if (known?.store === resolve(store)) return;
  records.put(key, runDir, { runDir: key, store: resolve(store) });
}

/** The runs listed for `store`. */
export function snapshotRunsOf(store: string): SnapshotRunRecord[] {
  return runs()
    .list()
    .map((record) => record.value)
    .filter((value) => value && typeof value.runDir === 'string' && value.store === resolve(store));
}

/** Takes a run off the list (its run directory is gone, or it is past the retention). */
export function forgetSnapshotRun(runDir: string): void {
  runs().remove(runDir);
}
