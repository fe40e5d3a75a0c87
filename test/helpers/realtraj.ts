import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { repoRoot } from './cli.js';

/** The shared dev split of real runs (../shared/realtraj beside the checkout, or beside its worktree folder; REIN_REALTRAJ overrides). */
export const REALTRAJ =
  process.env.REIN_REALTRAJ ??
  [join(repoRoot, '..', 'shared'), join(repoRoot, '..', '..', 'shared')].map((dir) => join(dir, 'realtraj', 'dev.jsonl.gz')).find(existsSync) ??
  join(repoRoot, '..', 'shared', 'realtraj', 'dev.jsonl.gz');

/** One realtraj line, as far as these tests read it. */
export interface RealtrajRun {
  source: string;
  instance: string;
  resolved: boolean;
  exit_status: string;
  steps: Array<{ tool: string; raw?: string }>;
}

let cache: RealtrajRun[] | undefined;

/** The realtraj run of one agent (`mini-gemini3pro`, `sweagent-sonnet4`) on one instance. */
export function realtrajRun(source: string, instance: string): RealtrajRun {
  cache ??= gunzipSync(readFileSync(REALTRAJ))
    .toString('utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as RealtrajRun);
  const run = cache.find((entry) => entry.source === source && entry.instance === instance);
  if (!run) throw new Error(`${REALTRAJ} has no ${source} run of ${instance}`);
  return run;
}
