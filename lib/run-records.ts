import { readStateRecords, realKey, writeStateRecords } from './state-records.js';
import { sha256 } from './trusted-rules.js';

const FILE = 'runs.json';

/**
 * The run directories rein made, each with a hash of the `run.json` it wrote there, kept in the user's state dir.
 * `run.json` names the rules (and the rules module `rein resume` and `rein viz` import), so one rein did not write
 * (shipped in a cloned repository, or changed since) is never acted on.
 *
 * @example recordRunMeta(runDir, text); …; isRecordedRunMeta(runDir, readFileSync(join(runDir, 'run.json'), 'utf8')) // true
 */
export function recordRunMeta(runDir: string, text: string): void {
  const runs = readStateRecords<string>(FILE, 'runs');
  runs[realKey(runDir)] = sha256(text);
  writeStateRecords(FILE, 'runs', runs);
}

/** Whether this is the `run.json` rein wrote in this run directory. */
export function isRecordedRunMeta(runDir: string, text: string): boolean {
  return readStateRecords<string>(FILE, 'runs')[realKey(runDir)] === sha256(text);
}
