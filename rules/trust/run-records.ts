import { sha256 } from '../../lib/sha256.js';
import { realKey, stateRecords } from '../../lib/state/state-records.js';

/** Run directory (real path) → sha256 of the `run.json` rein wrote there. */
const runs = stateRecords<string>('runs');

/**
 * The run directories rein made, each with a hash of the `run.json` it wrote there, kept in the user's state dir.
 * `run.json` names the rules (and the rules module `rein resume` and `rein viz` import), so one rein did not write
 * (shipped in a cloned repository, or changed since) is never acted on.
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
