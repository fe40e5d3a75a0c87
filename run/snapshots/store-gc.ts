import { existsSync, lstatSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openObjectStore } from '../../lib/snapshots/object-store.js';
import { treeObjects } from '../../lib/snapshots/tree-format.js';
import { liveRunWriter } from '../record/run-liveness.js';
import { readSnapshotIndex } from '../record/snapshot-index.js';
import { forgetSnapshotRun, snapshotRunsOf } from './snapshot-runs.js';

/** Objects written or reused this recently are never removed: a scan under way has not named them in an index line yet. */
export const GC_GRACE_MS = 60 * 60 * 1000;

/** What a collection found and did. */
interface GcReport {
  kept: string[];
  dropped: Array<{ runDir: string; why: 'gone' | 'expired' }>;
  objects: number;
  removed: number;
  bytesFreed: number;
  /** Unreferenced objects left because they are younger than the grace period. */
  young: number;
  /** Tree objects named by a kept run that were missing or damaged (their contents could not be followed). */
  broken: number;
}

interface GcOptions {
  store: string;
  /** A run whose newest snapshot is older than this many days (and that is not running) is no longer kept. */
  keepDays: number;
  dryRun?: boolean;
  graceMs?: number;
  now?: number;
  /** Called once every kept object is known, before any is removed (tests put a concurrent writer here). */
  onMarked?: () => void;
}

/**
 * Removes from a snapshot store the objects no kept run names. The runs are the store's list (registered by each run
 * that takes snapshots); a run whose run directory is gone, or whose newest snapshot is older than `keepDays` and
 * which is not running, is dropped from it. Safe while runs write to the store: an object younger than the grace
 * period (written, or reused by a scan, within the last hour) stays, and each object is moved aside, checked again
 * and only then deleted, so one a run touched meanwhile is put back.
 *
 * @example const report = collectSnapshotGarbage({ store, keepDays: 30 });
 */
export function collectSnapshotGarbage(options: GcOptions): GcReport {
  const now = options.now ?? Date.now();
  const grace = options.graceMs ?? GC_GRACE_MS;
  const root = resolve(options.store);
  const store = openObjectStore(root);
  const report: GcReport = { kept: [], dropped: [], objects: 0, removed: 0, bytesFreed: 0, young: 0, broken: 0 };
  const reachable = new Set<string>();
  const broken = { count: 0 };
  for (const { runDir } of snapshotRunsOf(root)) {
    // A listed run with no snapshot line yet is taking its first: kept (it names nothing yet, and its objects are young).
    const index = existsSync(runDir) ? readSnapshotIndex(runDir) : [];
    const why = !existsSync(runDir) ? 'gone' : index.length > 0 && expired(runDir, index, now - options.keepDays * 86_400_000) ? 'expired' : null;
    if (why) {
      report.dropped.push({ runDir, why });
      if (!options.dryRun) forgetSnapshotRun(root, runDir);
      continue;
    }
    report.kept.push(runDir);
    for (const line of index) {
      if (resolve(line.store) !== root) continue;
      treeObjects(store, line.tree, reachable, broken);
      if (line.chart) reachable.add(line.chart);
    }
  }
  report.broken = broken.count;
  options.onMarked?.();
  const objects = join(root, 'objects');
  for (const prefix of existsSync(objects) ? readdirSync(objects) : []) {
    for (const rest of readdirSync(join(objects, prefix))) {
      report.objects++;
      if (reachable.has(prefix + rest)) continue;
      const path = join(objects, prefix, rest);
      const freed = removeIfOld(path, { before: now - grace, dryRun: options.dryRun === true, aside: join(root, 'tmp', `gc-${prefix}${rest}`) });
      if (freed === null) report.young++;
      else {
        report.removed++;
        report.bytesFreed += freed;
      }
    }
  }
  if (!options.dryRun) removeOldTemps(join(root, 'tmp'), now - grace);
  return report;
}

/** Whether a run is past the retention: not running, and its newest snapshot older than `before`. */
function expired(runDir: string, index: ReturnType<typeof readSnapshotIndex>, before: number): boolean {
  const newest = Math.max(...index.map((line) => Date.parse(line.at)).filter(Number.isFinite));
  if (!(newest < before)) return false;
  // A run still going (its trace's writer alive here) is kept.
  return liveRunWriter(runDir) === null;
}

/**
 * Deletes an object older than `before`: moved aside first and its time read again there, so an object a run reused
 * (touched) between the look and the move goes back instead. Returns the bytes freed, or null when it was kept.
 */
function removeIfOld(path: string, how: { before: number; dryRun: boolean; aside: string }): number | null {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat || stat.mtimeMs >= how.before) return null;
  if (how.dryRun) return stat.size;
  try {
    renameSync(path, how.aside);
  } catch {
    return null;
  }
  const again = lstatSync(how.aside, { throwIfNoEntry: false });
  if (again && again.mtimeMs >= how.before) {
    // A run touched it in between: it is in use again. (A run that found it gone meanwhile wrote it anew: same bytes.)
    renameSync(how.aside, path);
    return null;
  }
  rmSync(how.aside, { force: true });
  return stat.size;
}

/** Temp files a killed process left mid-write. */
function removeOldTemps(dir: string, before: number): void {
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    const stat = lstatSync(join(dir, name), { throwIfNoEntry: false });
    if (stat && stat.mtimeMs < before) rmSync(join(dir, name), { force: true });
  }
}
