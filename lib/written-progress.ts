import { readStateRecords, realKey, writeStateRecords } from './state-records.js';
import { sha256 } from './trusted-rules.js';

const FILE = 'progress.json';

/**
 * The todo list rein last wrote in each workspace, by hash, in the user's state dir: the next run shows the
 * workspace's `.rein/progress.json` to the model as its earlier session's list only if it is exactly that, so a
 * repository cannot ship one (rein's words, rein's authority) and a changed or broken one is simply not used.
 *
 * @example recordWrittenProgress(ws, text); isWrittenProgress(ws, text) // true
 */
export function recordWrittenProgress(workspace: string, text: string): void {
  const written = readStateRecords<string>(FILE, 'written');
  written[realKey(workspace)] = sha256(text);
  writeStateRecords(FILE, 'written', written);
}

/** Whether this text is the todo list rein last wrote in this workspace. */
export function isWrittenProgress(workspace: string, text: string): boolean {
  return readStateRecords<string>(FILE, 'written')[realKey(workspace)] === sha256(text);
}
