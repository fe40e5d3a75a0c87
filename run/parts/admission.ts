import { existsSync, realpathSync } from 'node:fs';
import { UsageError } from '../../lib/errors.js';
import { checkHostHooks } from '../../rules/hooks/host-hooks.js';
import { checkHooksTrusted, checkStoreOutside } from '../../rules/trust/index.js';
import { removeLeftoverTempFiles } from '../../tools/edits/temp-file-journal.js';
import { prepareRunPlacement } from '../record/run-placement.js';
import type { RunOptions } from '../start-run.js';

/**
 * Whether this run may start at all, checked once, before anything is opened: the workspace exists, the trust store
 * lies outside it, the hooks its rules file declares are trusted and none that runs on the host names a file the agent could rewrite, and no run file
 * would sit where a command could write it. Then the half-written temporary files a killed rein left are removed,
 * before any command or model looks at the workspace. Returns the workspace's real path.
 *
 * @example const workspace = admitRun(options);
 */
export function admitRun(options: Pick<RunOptions, 'workspace' | 'rules' | 'configPath' | 'runDir' | 'tracePath'>): string {
  if (!existsSync(options.workspace)) throw new UsageError(`workspace not found: ${options.workspace}`);
  const workspace = realpathSync(options.workspace);
  checkStoreOutside(workspace);
  checkHooksTrusted(options.rules.hooks, options.configPath, workspace);
  checkHostHooks(options.rules.hooks, workspace, options.configPath);
  // Before the sandbox exists: .rein is made (and so shown read-only), and no run file is where a command could write it.
  prepareRunPlacement(workspace, { runDir: options.runDir, ...(options.tracePath ? { tracePath: options.tracePath } : {}) });
  removeLeftoverTempFiles();
  return workspace;
}
