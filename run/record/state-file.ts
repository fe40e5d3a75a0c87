import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { UsageError } from '../../lib/errors.js';
import { migrateSavedState, STATE_VERSION } from './state-migration.js';

export { STATE_VERSION };

/** What is saved after every step so a killed run can be resumed (older formats are migrated: run/record/state-migration.ts). */
export interface SavedState {
  version: typeof STATE_VERSION;
  savedAt: string;
  /** Milliseconds of the time budget used when this was saved. */
  elapsedMs: number;
  recordLength: number;
  /** Index of the next trace line, so the resumed trace continues its numbering. */
  traceIndex: number;
  /** XState persisted snapshot, with the transient working view removed. */
  snapshot: unknown;
  /** `prompted` once the model actor switched to prompted tool calling (auto mode): a resumed run goes on in it. */
  toolCalling?: 'prompted';
  /** A fork's first state (`rein fork`): the run and the step it branched from; its resume line says so. */
  forkOf?: { runDir: string; step: number };
}

/**
 * Writes `state.json` atomically: a temp file is written (and, with `fsync`, fsynced), then put in the old one's place,
 * so a kill at any moment leaves either the old or the new state, never half of one. Without fsync (a run's default,
 * unless `--fsync`) the old file is removed before the rename: renaming over a file makes ext4 write the new one's
 * blocks out at once (its `auto_da_alloc`), which cost a run's step more than anything else it writes. A kill between
 * the two leaves the new state whole under the temp name, which `loadState` reads and the next save puts in place.
 */
export function saveState(path: string, state: SavedState, options: { fsync?: boolean } = {}): void {
  const temp = tempOf(path);
  // A kill between removing the old state and the rename left the newest state as the temp file: keep it.
  if (!existsSync(path) && existsSync(temp)) renameSync(temp, path);
  const fd = openSync(temp, 'w');
  try {
    writeSync(fd, JSON.stringify(state));
    // fsync guards against power loss; a killed process loses nothing without it (the page cache survives).
    if (options.fsync !== false) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  if (options.fsync === false) rmSync(path, { force: true });
  renameSync(temp, path);
}

const tempOf = (path: string) => `${path}.tmp`;

/** Whether a run directory's state file is there (or, after a kill mid-save, its whole temp file). */
export function hasSavedState(path: string): boolean {
  return existsSync(path) || existsSync(tempOf(path));
}

/** The saved state, in the current format (a state saved by an older rein is migrated); a clear error when it cannot be read or migrated. */
export function loadState(path: string): SavedState {
  if (!hasSavedState(path)) throw new UsageError(`no saved state at ${path}: is this a rein run directory?`);
  let raw: unknown;
  try {
    // The temp file only when the state file is not there: a kill came between removing it and the rename.
    raw = JSON.parse(readFileSync(existsSync(path) ? path : tempOf(path), 'utf8'));
  } catch (error) {
    throw new UsageError(`${path}: not JSON (${(error as Error).message}); the state file is damaged`);
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new UsageError(`${path}: not a rein state file`);
  return migrateSavedState(raw as SavedState, path);
}
