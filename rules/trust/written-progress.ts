import { sha256 } from '../../lib/sha256.js';
import { realKey, stateRecords } from '../../lib/state/state-records.js';

/** Workspace (real path) → sha256 of the progress.json rein last wrote there. */
const written = stateRecords<string>('progress');

/**
 * The todo list rein last wrote in each workspace, by hash, in the user's state dir: the next run shows the
 * workspace's `.rein/progress.json` to the model as its earlier session's list only if it is exactly that, so a
 * repository cannot ship one (rein's words, rein's authority) and a changed or broken one is simply not used.
 *
 * @example recordWrittenProgress(ws, text); isWrittenProgress(ws, text) // true
 */
export function recordWrittenProgress(workspace: string, text: string): void {
  const key = realKey(workspace);
  written.put(key, key, sha256(text));
}

/** Whether this text is the todo list rein last wrote in this workspace. */
export function isWrittenProgress(workspace: string, text: string): boolean {
  return written.get(realKey(workspace)) === sha256(text);
}
