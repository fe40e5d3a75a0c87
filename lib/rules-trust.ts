import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RULES_FILE_NAMES, STATE_DIR_NAME } from './harness-files.js';
import { userStateDir } from './user-state-dir.js';

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

/** The trust store, one JSON file in the user's state dir: per workspace, the rules files runs wrote, and the baselines of runs not yet ended. */
interface TrustStore {
  /** workspace → rules file name → hash of the content a run wrote (not loaded until trusted). */
  untrusted: Record<string, Record<string, string>>;
  /** workspace → run dir → the rules files' hashes when that run started; removed when it ends. */
  watching: Record<string, Record<string, Record<string, string>>>;
}

const STORE_FILE = 'rules-trust.json';
/** The record of runs before the trust store lived outside the repository; read, never written. */
const LEGACY_UNTRUSTED_FILE = join(STATE_DIR_NAME, 'untrusted-rules.json');

function storePath(): string {
  return join(userStateDir(), STORE_FILE);
}

function readStore(): TrustStore {
  try {
    const value = JSON.parse(readFileSync(storePath(), 'utf8')) as Partial<TrustStore>;
    return { untrusted: objectOr(value.untrusted), watching: objectOr(value.watching) } as TrustStore;
  } catch {
    return { untrusted: {}, watching: {} };
  }
}

function writeStore(store: TrustStore): void {
  // Workspaces that are gone (a test's, a deleted clone) are forgotten.
  for (const part of [store.untrusted, store.watching]) for (const ws of Object.keys(part)) if (!existsSync(ws)) delete part[ws];
  const file = storePath();
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(store, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, file);
}

function objectOr(value: unknown): Record<string, never> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, never>) : {};
}

function key(workspace: string): string {
  try {
    return realpathSync(workspace);
  } catch {
    return resolve(workspace);
  }
}

/**
 * Records, before the agent acts, the rules files a run starts with, in the user's state dir. Until `endRulesWatch`
 * removes it, any rules file that differs from this baseline is untrusted: a run killed with SIGKILL, crashed, or
 * left hanging leaves nothing the agent wrote loadable. A resumed run keeps the baseline its first start took.
 *
 * @example const watch = beginRulesWatch(ws, runDir); …; endRulesWatch(ws, runDir) // ['rein.config.mjs'] if the run wrote it
 */
export function beginRulesWatch(workspace: string, runDir: string): void {
  const store = readStore();
  store.watching[key(workspace)] ??= {};
  const runs = store.watching[key(workspace)]!;
  runs[runDir] ??= Object.fromEntries(rulesFilesIn(workspace));
  writeStore(store);
}

/** The run has ended: rules files it created or changed are marked untrusted, and its baseline goes. Returns their names. */
export function endRulesWatch(workspace: string, runDir: string): string[] {
  const store = readStore();
  const ws = key(workspace);
  const baseline = new Map(Object.entries(store.watching[ws]?.[runDir] ?? {}));
  const current = rulesFilesIn(workspace);
  const changed = changedRulesFiles(baseline, current);
  store.untrusted[ws] ??= {};
  const marks = store.untrusted[ws]!;
  for (const name of changed) {
    const hash = current.get(name);
    if (hash) marks[name] = hash;
  }
  delete store.watching[ws]?.[runDir];
  if (store.watching[ws] && Object.keys(store.watching[ws]).length === 0) delete store.watching[ws];
  writeStore(store);
  return changed;
}

/** Notes rules files a run created or changed (by content hash), in the user's state dir, which the agent cannot write. */
export function markUntrusted(workspace: string, names: readonly string[]): void {
  const current = rulesFilesIn(workspace);
  const store = readStore();
  store.untrusted[key(workspace)] ??= {};
  const marks = store.untrusted[key(workspace)]!;
  for (const name of names) {
    const hash = current.get(name);
    if (hash) marks[name] = hash;
  }
  writeStore(store);
}

/**
 * Whether this rules file may be code or rules an agent wrote: a run marked it (same content), or a run that has not
 * ended (killed, crashed, still running) started with other content there, or an old in-repository record says so.
 */
export function isUntrusted(workspace: string, name: string): boolean {
  const hash = rulesFilesIn(workspace).get(name);
  if (hash === undefined) return false;
  const store = readStore();
  const ws = key(workspace);
  if (store.untrusted[ws]?.[name] === hash) return true;
  if (Object.values(store.watching[ws] ?? {}).some((baseline) => baseline[name] !== hash)) return true;
  return readLegacyUntrusted(workspace)[name] === hash;
}

function readLegacyUntrusted(workspace: string): Record<string, string> {
  try {
    return objectOr(JSON.parse(readFileSync(join(workspace, LEGACY_UNTRUSTED_FILE), 'utf8')));
  } catch {
    return {};
  }
}

/** `rein rules trust`: the person has reviewed the rules files as they are now; returns the names trusted. */
export function trustRulesFiles(workspace: string): string[] {
  const store = readStore();
  const ws = key(workspace);
  const current = rulesFilesIn(workspace);
  const names = new Set(Object.keys(store.untrusted[ws] ?? {}));
  for (const name of Object.keys(readLegacyUntrusted(workspace))) if (current.has(name)) names.add(name);
  delete store.untrusted[ws];
  // Runs that never ended: what is there now was reviewed, so it is their baseline from here on.
  for (const baseline of Object.values(store.watching[ws] ?? {})) {
    for (const name of RULES_FILE_NAMES) {
      if (baseline[name] !== current.get(name)) names.add(name);
      const hash = current.get(name);
      if (hash) baseline[name] = hash;
      else delete baseline[name];
    }
  }
  writeStore(store);
  if (existsSync(join(workspace, LEGACY_UNTRUSTED_FILE))) {
    try {
      writeFileSync(join(workspace, LEGACY_UNTRUSTED_FILE), '{}\n');
    } catch {
      // A folder the agent made there: the legacy record is simply not read as one.
    }
  }
  return [...names];
}
