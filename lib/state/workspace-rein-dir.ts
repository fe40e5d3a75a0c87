import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKSPACE_REIN_DIR } from './harness-files.js';

/**
 * Creates `<workspace>/.rein` (progress file, saved runs) with a `.gitignore`
 * that ignores it, so rein's own state never shows up as changes in the
 * repository it works on.
 *
 * @example ensureWorkspaceReinDir('/work/repo') // '/work/repo/.rein'
 */
export function ensureWorkspaceReinDir(workspace: string): string {
  const dir = join(workspace, WORKSPACE_REIN_DIR);
  mkdirSync(dir, { recursive: true });
  const ignore = join(dir, '.gitignore');
  if (!existsSync(ignore)) writeFileSync(ignore, "# rein's run state and todo list; not part of the project\n*\n");
  return dir;
}
