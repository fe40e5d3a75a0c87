import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readRegularFile } from '../../lib/regular-file.js';
import { sha256 } from '../../lib/sha256.js';
import { RULES_FILE_NAMES, WORKSPACE_REIN_DIR } from '../../lib/state/harness-files.js';
import { writePrivateJson } from '../../lib/state/state-records.js';
import { userStateDir } from '../../lib/state/user-state-dir.js';
import { realKey, trustRecords } from './store.js';

/** The rules files at a workspace root, by name, with a hash of their content (absent files left out). */
export function rulesFilesIn(workspace: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const name of RULES_FILE_NAMES) {
    try {
      found.set(name, sha256(readRegularFile(join(workspace, name))));
    } catch (error) {
      // A FIFO, device or folder an agent left under that name is never read: it stands for itself, so it differs from any baseline.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') found.set(name, `not a regular file: ${(error as Error).message}`);
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
function changedRulesFiles(before: Map<string, string>, after: Map<string, string>): string[] {
  return RULES_FILE_NAMES.filter((name) => before.get(name) !== after.get(name));
}

interface UntrustedMark {
  workspace: string;
  name: string;
  hash: string;
}

interface RulesWatch {
  workspace: string;
  runDir: string;
  /** The rules files' hashes when that run started. */
  baseline: Record<string, string>;
}

/**
 * Rules files runs wrote (not loaded until a person trusts them), one record per workspace, file and content, so
 * marking never reads and rewrites another run's marks.
 */
const untrustedMarks = trustRecords<UntrustedMark>('untrustedRules');
/** The baselines of runs not yet ended, one record per workspace and run directory; removed when the run ends. */
const watches = trustRecords<RulesWatch>('rulesWatch');

const markKey = (workspace: string, name: string, hash: string): string => `${workspace}\n${name}\n${hash}`;
const watchKey = (workspace: string, runDir: string): string => `${workspace}\n${runDir}`;

function mark(workspace: string, name: string, hash: string): void {
  untrustedMarks.put(markKey(workspace, name, hash), workspace, { workspace, name, hash });
}

/**
 * Records, before the agent acts, the rules files a run starts with, in the user's state dir. Until `endRulesWatch`
 * removes it, any rules file that differs from this baseline is untrusted: a run killed with SIGKILL, crashed, or
 * left hanging leaves nothing the agent wrote loadable. A resumed run keeps the baseline its first start took.
 *
 * @example const watch = beginRulesWatch(ws, runDir); …; endRulesWatch(ws, runDir) // ['rein.config.mjs'] if the run wrote it
 */
export function beginRulesWatch(workspace: string, runDir: string): void {
  const ws = realKey(workspace);
  if (watches.get(watchKey(ws, runDir)) !== undefined || legacyStore().watching[ws]?.[runDir]) return;
  watches.put(watchKey(ws, runDir), ws, { workspace: ws, runDir, baseline: Object.fromEntries(rulesFilesIn(workspace)) });
}

/** The run has ended: rules files it created or changed are marked untrusted, and its baseline goes. Returns their names. */
export function endRulesWatch(workspace: string, runDir: string): string[] {
  const ws = realKey(workspace);
  const legacy = legacyStore();
  const baseline = new Map(Object.entries(watches.get(watchKey(ws, runDir))?.baseline ?? legacy.watching[ws]?.[runDir] ?? {}));
  const current = rulesFilesIn(workspace);
  const changed = changedRulesFiles(baseline, current);
  for (const name of changed) {
    const hash = current.get(name);
    if (hash) mark(ws, name, hash);
  }
  watches.remove(watchKey(ws, runDir));
  if (legacy.watching[ws]?.[runDir]) {
    // A run started before the records moved into their own files: its baseline goes from the old store.
    delete legacy.watching[ws][runDir];
    writeLegacyStore(legacy);
  }
  return changed;
}

/**
 * Whether this rules file may be code or rules an agent wrote: a run marked it (same content), or a run that has not
 * ended (killed, crashed, still running) started with other content there, or an old record says so.
 */
export function isUntrusted(workspace: string, name: string): boolean {
  const hash = rulesFilesIn(workspace).get(name);
  if (hash === undefined) return false;
  const ws = realKey(workspace);
  if (untrustedMarks.get(markKey(ws, name, hash)) !== undefined) return true;
  const baselines = [...watchesOf(ws).map(({ value }) => value.baseline), ...Object.values(legacyStore().watching[ws] ?? {})];
  if (baselines.some((baseline) => baseline[name] !== hash)) return true;
  if (legacyStore().untrusted[ws]?.[name] === hash) return true;
  return readLegacyUntrusted(workspace)[name] === hash;
}

function watchesOf(ws: string): Array<{ key: string; value: RulesWatch }> {
  return watches.list().filter(({ value }) => value.workspace === ws);
}

/** The single trust file of earlier versions (`rules-trust.json`): still read, and cleared by `rein trust`, never added to. */
interface LegacyStore {
  untrusted: Record<string, Record<string, string>>;
  watching: Record<string, Record<string, Record<string, string>>>;
}

const LEGACY_STORE_FILE = 'rules-trust.json';
/** The record of runs before the trust store lived outside the repository; read, never written. */
const LEGACY_UNTRUSTED_FILE = join(WORKSPACE_REIN_DIR, 'untrusted-rules.json');

function legacyStore(): LegacyStore {
  try {
    const value = JSON.parse(readFileSync(join(userStateDir(), LEGACY_STORE_FILE), 'utf8')) as Partial<LegacyStore>;
    return { untrusted: objectOr(value.untrusted), watching: objectOr(value.watching) };
  } catch {
    return { untrusted: {}, watching: {} };
  }
}

function writeLegacyStore(store: LegacyStore): void {
  writePrivateJson(join(userStateDir(), LEGACY_STORE_FILE), store);
}

function objectOr(value: unknown): Record<string, never> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, never>) : {};
}

function readLegacyUntrusted(workspace: string): Record<string, string> {
  try {
    return objectOr(JSON.parse(readRegularFile(join(workspace, LEGACY_UNTRUSTED_FILE), 'utf8')));
  } catch {
    return {};
  }
}

/** `rein rules trust`: the person has reviewed the rules files as they are now; returns the names trusted. */
export function clearUntrustedMarks(workspace: string): string[] {
  const ws = realKey(workspace);
  const current = rulesFilesIn(workspace);
  const names = new Set<string>();
  for (const { key, value } of untrustedMarks.list()) {
    if (value.workspace !== ws) continue;
    names.add(value.name);
    untrustedMarks.remove(key);
  }
  for (const name of Object.keys(readLegacyUntrusted(workspace))) if (current.has(name)) names.add(name);
  // Runs that never ended: what is there now was reviewed, so it is their baseline from here on.
  const reviewed = (baseline: Record<string, string>): Record<string, string> => {
    for (const name of RULES_FILE_NAMES) if (baseline[name] !== current.get(name)) names.add(name);
    return Object.fromEntries(current);
  };
  for (const { key, value } of watchesOf(ws)) watches.put(key, ws, { ...value, baseline: reviewed(value.baseline) });
  const legacy = legacyStore();
  if (legacy.untrusted[ws] || legacy.watching[ws]) {
    for (const name of Object.keys(legacy.untrusted[ws] ?? {})) names.add(name);
    delete legacy.untrusted[ws];
    for (const [runDir, baseline] of Object.entries(legacy.watching[ws] ?? {})) legacy.watching[ws]![runDir] = reviewed(baseline);
    writeLegacyStore(legacy);
  }
  if (existsSync(join(workspace, LEGACY_UNTRUSTED_FILE))) {
    try {
      writeFileSync(join(workspace, LEGACY_UNTRUSTED_FILE), '{}\n');
    } catch {
      // A folder the agent made there: the legacy record is simply not read as one.
    }
  }
  return [...names];
}
