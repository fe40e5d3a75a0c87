import { sha256 } from '../../lib/sha256.js';
import { realKey, trustRecords } from './store.js';

/** Run directory (real path) → sha256 of the `run.json` rein wrote there. */
const runs = trustRecords<string>('runs');
/** Workspace (real path) → sha256 of the progress.json rein last wrote there. */
const progress = trustRecords<string>('progress');

/**
 * The run directories rein made, each with a hash of the `run.json` it wrote there. `run.json` names the rules (and
 * the rules module `rein resume` and `rein viz` import), so one rein did not write (shipped in a cloned repository, or
 * changed since) is never acted on.
 *
 * @example recordRunMeta(runDir, text); …; isRecordedRunMeta(runDir, readFileSync(join(runDir, 'run.json'), 'utf8')) // true
 */
export function recordRunMeta(runDir: string, text: string): void {
  const key = realKey(runDir);
  runs.put(key, key, sha256(text));
}

/** Whether this is the `run.json` rein wrote in this run directory. */
export function isRecordedRunMeta(runDir: string, text: string): boolean {
  return runs.get(realKey(runDir)) === sha256(text);
}

/**
 * The todo list rein last wrote in each workspace, by hash: the next run shows the workspace's `.rein/progress.json`
 * to the model as its earlier session's list only if it is exactly that, so a repository cannot ship one (rein's
 * words, rein's authority) and a changed or broken one is simply not used.
 *
 * @example recordWrittenProgress(ws, text); isWrittenProgress(ws, text) // true
 */
export function recordWrittenProgress(workspace: string, text: string): void {
  const key = realKey(workspace);
  progress.put(key, key, sha256(text));
}

/** Whether this text is the todo list rein last wrote in this workspace. */
export function isWrittenProgress(workspace: string, text: string): boolean {
  return progress.get(realKey(workspace)) === sha256(text);
}
