import { existsSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { userStateDir } from './user-state-dir.js';

/**
 * One JSON file of records in the user's state dir (`{ "<section>": { "<key>": record } }`), read whole and written
 * atomically, private to the user. What rein trusts or wrote is kept here, where no repository and no sandboxed
 * command can change it. Keys are real paths; records of paths that are gone are dropped on write.
 *
 * @example writeStateRecords('runs.json', 'runs', { [realKey(dir)]: hash })
 */
export function readStateRecords<T>(file: string, section: string): Record<string, T> {
  try {
    const value = (JSON.parse(readFileSync(join(userStateDir(), file), 'utf8')) as Record<string, unknown>)[section];
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, T>) : {};
  } catch {
    return {};
  }
}

export function writeStateRecords<T>(file: string, section: string, records: Record<string, T>): void {
  for (const key of Object.keys(records)) if (!existsSync(key)) delete records[key];
  const path = join(userStateDir(), file);
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ [section]: records }, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, path);
}

/** The real path, or the resolved one for a path that does not exist (yet). */
export function realKey(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
