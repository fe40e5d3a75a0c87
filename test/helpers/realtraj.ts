import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { repoRoot } from './cli.js';

/**
 * The realtraj runs these tests compare with: the five of the shared dev split (../shared/realtraj/dev.jsonl.gz) that
 * test/fixtures/replay holds the raw files of, cut to the fields read here, so a clone anywhere has them.
 * REIN_REALTRAJ names the whole split (or another) instead.
 */
export const REALTRAJ = process.env.REIN_REALTRAJ ?? join(repoRoot, 'test', 'fixtures', 'realtraj', 'dev-subset.jsonl');

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
  const bytes = readFileSync(REALTRAJ);
  cache ??= (REALTRAJ.endsWith('.gz') ? gunzipSync(bytes) : bytes)
    .toString('utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as RealtrajRun);
  const run = cache.find((entry) => entry.source === source && entry.instance === instance);
  if (!run) throw new Error(`${REALTRAJ} has no ${source} run of ${instance}`);
  return run;
}
