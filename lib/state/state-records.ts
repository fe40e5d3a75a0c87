import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sha256 } from '../sha256.js';
import { userStateDir } from './user-state-dir.js';

/** One record as stored: the key it is filed under, the path it is about (dropped once that path is gone), the value. */
interface StoredRecord<T> {
  key: string;
  path: string;
  value: T;
}

/** How often a folder is swept for records whose path is gone: the sweep reads every record, and they accumulate with every run. */
const PRUNE_EVERY_MS = 24 * 60 * 60 * 1000;

/** A folder of records in the user's state dir, one small private JSON file per key. */
export interface StateRecords<T> {
  /** The folder, for messages that tell a person where to look. */
  readonly dir: string;
  get(key: string): T | undefined;
  /** Files `value` under `key`; `path` is what the record is about: records whose path is gone are dropped here, at most once a day. */
  put(key: string, path: string, value: T): void;
  remove(key: string): void;
  /** Every record, with its key. */
  list(): Array<{ key: string; value: T }>;
}

/**
 * What rein trusts or wrote, kept where no repository and no sandboxed command can change it: a folder in the user's
 * state dir with one file per key, each written atomically and private to the user. One file per key (not one file
 * for all) means runs started at the same moment by several processes never lose each other's record: no record is
 * ever read, changed and written back.
 *
 * @example const runs = stateRecords<string>('runs'); runs.put(realKey(dir), dir, hash); runs.get(realKey(dir)) // hash
 */
export function stateRecords<T>(folder: string): StateRecords<T> {
  const dir = (): string => {
    const path = join(userStateDir(), folder);
    mkdirSync(path, { recursive: true, mode: 0o700 });
    return path;
  };
  const fileOf = (key: string): string => join(dir(), `${sha256(key).slice(0, 32)}.json`);
  const readAll = (): Array<{ file: string; record: StoredRecord<T> }> => {
    const folderPath = dir();
    const found: Array<{ file: string; record: StoredRecord<T> }> = [];
    for (const name of readdirSync(folderPath)) {
      if (!name.endsWith('.json')) continue;
      const record = readRecord<T>(join(folderPath, name));
      if (record) found.push({ file: join(folderPath, name), record });
    }
    return found;
  };
  return {
    get dir() {
      return dir();
    },
    get(key) {
      const record = readRecord<T>(fileOf(key));
      return record?.key === key ? record.value : undefined;
    },
    put(key, path, value) {
      if (dueForPruning(dir())) for (const { file, record } of readAll()) if (!existsSync(record.path)) rmSync(file, { force: true });
      writePrivateJson(fileOf(key), { key, path, value } satisfies StoredRecord<T>);
    },
    remove(key) {
      const file = fileOf(key);
      if (readRecord<T>(file)?.key === key) rmSync(file, { force: true });
    },
    list() {
      return readAll().map(({ record }) => ({ key: record.key, value: record.value }));
    },
  };
}

/** Whether the folder was last swept a day ago or more (or never); marks it swept now if so, in a file beside it (not among its records). */
function dueForPruning(folder: string): boolean {
  const mark = `${folder}.last-pruned`;
  const now = new Date();
  try {
    if (now.getTime() - statSync(mark).mtimeMs < PRUNE_EVERY_MS) return false;
    utimesSync(mark, now, now);
  } catch {
    writeFileSync(mark, '', { mode: 0o600 });
  }
  return true;
}

function readRecord<T>(file: string): StoredRecord<T> | undefined {
  try {
    const record = JSON.parse(readFileSync(file, 'utf8')) as Partial<StoredRecord<T>>;
    return typeof record.key === 'string' && typeof record.path === 'string' && 'value' in record ? (record as StoredRecord<T>) : undefined;
  } catch {
    return undefined;
  }
}

/** Writes JSON readable only by the user, atomically: a reader sees the old file or the new one, never half of one. */
export function writePrivateJson(file: string, value: unknown): void {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, file);
}

/** The real path, or the resolved one for a path that does not exist (yet). */
export function realKey(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
