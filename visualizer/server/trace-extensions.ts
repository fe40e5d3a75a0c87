import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { HarnessOptions } from 'rein/machines';
import { readOwnRunMeta, readRunMeta, runFile } from 'rein/run';
import type { PageNote } from './page-data.js';

/**
 * The guards and rule actions a traced run registered from its rules module,
 * so the replayed chart is the run's own and not the default. They are found
 * through the run's `run.json` (beside the trace, or at the start line's
 * `runDir`), which names the rules file; a file that is gone or no longer
 * loads leaves the default registries and a note.
 *
 * @example const { extensions } = await extensionsForTrace('.rein/runs/abc/trace.jsonl', start);
 */
export async function extensionsForTrace(
  tracePath: string,
  start: Record<string, unknown> | undefined,
): Promise<{ extensions: HarnessOptions; notes: PageNote[] }> {
  const candidates = [dirname(tracePath), ...(typeof start?.runDir === 'string' ? [start.runDir] : [])];
  const runDir = candidates.find((dir) => existsSync(runFile(dir, 'meta')));
  if (!runDir) return { extensions: {}, notes: [] };
  let meta: ReturnType<typeof readRunMeta>;
  try {
    meta = readRunMeta(runDir);
  } catch {
    return { extensions: {}, notes: [] };
  }
  const { configPath } = meta;
  if (configPath === undefined) return { extensions: {}, notes: [] };
  try {
    // A rules module is imported only from a run.json rein wrote, as it was when that run started.
    readOwnRunMeta(runDir);
    const { loadRules } = await import('rein/run');
    const loaded = await loadRules({ configPath, workspace: meta.workspace, startedWith: meta.configFingerprint ?? { hash: '', modules: {} } });
    return { extensions: { guards: loaded.guards, actions: loaded.actions }, notes: [] };
  } catch (error) {
    return {
      extensions: {},
      notes: [
        {
          level: 'warn',
          text: `The run's rules file ${configPath} does not load here (${(error as Error).message.split('\n')[0]}); its own guards and actions are missing.`,
        },
      ],
    };
  }
}
