import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RULES_FILE_NAMES } from './harness-files.js';

/** The rules files at a workspace root, by name, with a hash of their content (absent files left out). */
export function rulesFilesIn(workspace: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const name of RULES_FILE_NAMES) {
    try {
      found.set(name, createHash('sha256').update(readFileSync(join(workspace, name))).digest('hex'));
    } catch {
      // not there
    }
  }
  return found;
}

/**
 * Rules files a run created, changed or removed: `rein run` imports a
 * `.ts`/`.mjs`/`.js` rules file it finds, so one the agent wrote would be
 * code the next run executes. The sandbox and the file tools refuse such
 * writes; this catches what they cannot (an unsandboxed command).
 *
 * @example const before = rulesFilesIn(ws); await run(); changedRulesFiles(before, rulesFilesIn(ws)) // ['rein.config.mjs']
 */
export function changedRulesFiles(before: Map<string, string>, after: Map<string, string>): string[] {
  return RULES_FILE_NAMES.filter((name) => before.get(name) !== after.get(name));
}
