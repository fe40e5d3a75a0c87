import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { UsageError } from '../lib/errors.js';

/** What is saved after every step so a killed run can be resumed. */
/** Bumped when the saved machine context changes shape: a run saved by another version is not resumed by this one. */
export const STATE_VERSION = 3;

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
}

/**
 * Writes `state.json` atomically: a temp file is written and fsynced, then
 * renamed over the old one, so a kill at any moment leaves either the old or
 * the new state, never half of one. Without fsync (tests, benchmarks) the
 * same holds for a killed process, but not for a power cut.
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

export function loadState(path: string): SavedState {
  if (!existsSync(path)) throw new UsageError(`no saved state at ${path}: is this a rein run directory?`);
  const state = JSON.parse(readFileSync(path, 'utf8')) as SavedState;
  if (state.version !== STATE_VERSION)
    throw new UsageError(
      `${path}: saved by another rein version (state format ${String(state.version)}, this rein reads ${STATE_VERSION}); resume it with the rein that started it`,
    );
  return state;
}
