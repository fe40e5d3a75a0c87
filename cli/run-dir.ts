import { STATE_DIR_NAME } from '../lib/harness-files.js';
import { join, resolve } from 'node:path';

/** A fresh run directory name: sortable time plus a short random suffix. */
export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${Math.random().toString(36).slice(2, 6)}`;
}

/** Where a run's trace, record and saved state go: `--run-dir`, else `<workspace>/.rein/runs/<id>`. */
export function chooseRunDir(workspace: string, explicit: string | undefined): string {
  return explicit ? resolve(explicit) : join(resolve(workspace), STATE_DIR_NAME, 'runs', newRunId());
}
