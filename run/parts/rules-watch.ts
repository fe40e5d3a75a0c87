import { beginRulesWatch, endRulesWatch } from '../../rules/trust/index.js';
import type { ResourceStack } from '../resource-stack.js';

/**
 * Watches the workspace's rules files for the length of the run: the baseline is recorded before any server, hook or
 * command can run, and when the run is released (last of all) every rules file it created, changed or removed is marked
 * untrusted, so the next run does not load what the agent wrote.
 *
 * @example const watch = watchRulesFiles(workspace, runDir, held); …; watch.tampered()
 */
export function watchRulesFiles(workspace: string, runDir: string, held: ResourceStack): { tampered(): string[] } {
  let changed: string[] = [];
  beginRulesWatch(workspace, runDir);
  held.own('the rules-file watch', runDir, () => {
    changed = endRulesWatch(workspace, runDir);
  });
  return { tampered: () => changed };
}

/** What a person is told about the rules files a run changed. */
export function tamperWarning(files: readonly string[], workspace: string): string {
  return `WARNING: the run changed ${files.join(', ')} in the workspace. rein will not load it until you have reviewed it and run \`rein trust ${workspace}\` (a .ts/.mjs/.js rules file is code).`;
}
