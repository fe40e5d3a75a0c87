import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RULES_FILE_NAMES, STATE_DIR_NAME } from './harness-files.js';
import { ensureStateDir } from './state-dir.js';

/** The rules files at a workspace root, by name, with a hash of their content (absent files left out). */
export function rulesFilesIn(workspace: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const name of RULES_FILE_NAMES) {
    try {
      found.set(
        name,
        createHash('sha256')
          .update(readFileSync(join(workspace, name)))
          .digest('hex'),
      );
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

/** Where rein remembers rules files a run wrote, so the next run does not load them unreviewed. */
const UNTRUSTED_FILE = join(STATE_DIR_NAME, 'untrusted-rules.json');

function readUntrusted(workspace: string): Record<string, string> {
  try {
    const value = JSON.parse(readFileSync(join(workspace, UNTRUSTED_FILE), 'utf8')) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** Notes rules files a run created or changed (by content hash), in the workspace's `.rein`, which the agent cannot write. */
export function markUntrusted(workspace: string, names: readonly string[]): void {
  const current = rulesFilesIn(workspace);
  const untrusted = readUntrusted(workspace);
  for (const name of names) {
    const hash = current.get(name);
    if (hash) untrusted[name] = hash;
  }
  ensureStateDir(workspace);
  writeFileSync(join(workspace, UNTRUSTED_FILE), `${JSON.stringify(untrusted, null, 2)}\n`);
}

/** Whether this rules file is one a run wrote and nobody has trusted since (same content). */
export function isUntrusted(workspace: string, name: string): boolean {
  const hash = rulesFilesIn(workspace).get(name);
  return hash !== undefined && readUntrusted(workspace)[name] === hash;
}

/** `rein rules trust`: the person has reviewed the rules files as they are now; returns the names trusted. */
export function trustRulesFiles(workspace: string): string[] {
  const untrusted = readUntrusted(workspace);
  const names = Object.keys(untrusted);
  if (names.length > 0) writeFileSync(join(workspace, UNTRUSTED_FILE), '{}\n');
  return names;
}
