import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
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
 * Writes `state.json` atomically: a temp file is written and fsynced, then
 * renamed over the old one, so a kill at any moment leaves either the old or
 * the new state, never half of one. Without fsync (a run's default, unless
 * `--fsync`) the same holds for a killed process, but not for a power cut.
 */
export function saveState(path: string, state: SavedState, options: { fsync?: boolean } = {}): void {
  const temp = `${path}.tmp`;
  const fd = openSync(temp, 'w');
  try {
    writeSync(fd, JSON.stringify(state));
    // fsync guards against power loss; a killed process loses nothing without it (the page cache survives).
    if (options.fsync !== false) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
}

/** The saved state, in the current format (a state saved by an older rein is migrated); a clear error when it cannot be read or migrated. */
export function loadState(path: string): SavedState {
  if (!existsSync(path)) throw new UsageError(`no saved state at ${path}: is this a rein run directory?`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`${path}: not JSON (${(error as Error).message}); the state file is damaged`);
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new UsageError(`${path}: not a rein state file`);
  return migrateSavedState(raw as SavedState, path);
}
