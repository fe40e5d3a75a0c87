import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { realKey } from './state-records.js';
import { sha256 } from './trusted-rules.js';
import { userStateDir } from './user-state-dir.js';

/**
 * The run directories rein made, each with a hash of the `run.json` it wrote there, kept in the user's state dir
 * (one small file per run, so runs started at the same moment by several processes never lose each other's record).
 * `run.json` names the rules (and the rules module `rein resume` and `rein viz` import), so one rein did not write
 * (shipped in a cloned repository, or changed since) is never acted on.
 *
 * @example recordRunMeta(runDir, text); …; isRecordedRunMeta(runDir, readFileSync(join(runDir, 'run.json'), 'utf8')) // true
 */
export function recordRunMeta(runDir: string, text: string): void {
  const file = recordOf(runDir);
  mkdirSync(join(userStateDir(), 'runs'), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ runDir: realKey(runDir), runJson: sha256(text) })}\n`, { mode: 0o600 });
  renameSync(temp, file);
}

/** Whether this is the `run.json` rein wrote in this run directory. */
export function isRecordedRunMeta(runDir: string, text: string): boolean {
  try {
    const record = JSON.parse(readFileSync(recordOf(runDir), 'utf8')) as { runDir?: unknown; runJson?: unknown };
    return record.runDir === realKey(runDir) && record.runJson === sha256(text);
  } catch {
    return false;
  }
}

function recordOf(runDir: string): string {
  return join(userStateDir(), 'runs', `${sha256(realKey(runDir)).slice(0, 32)}.json`);
}
