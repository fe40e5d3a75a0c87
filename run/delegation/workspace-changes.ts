import { type BigIntStats, existsSync, lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { snapshotExclusion } from '../../lib/snapshots/exclusion.js';

/** Each workspace file's path and what changes when it is written: its size, mode and modification time (ns). */
type Fingerprint = Record<string, string>;

/** Past this many files the workspace is not fingerprinted: the child's commands' changes are then not known. */
const MAX_FILES = 100_000;
const FILE = 'workspace-before.json';

/**
 * What a delegated child's commands changed in the workspace: its files are fingerprinted (stat only, no reading)
 * before the child starts, kept in the child's run directory so a resumed child compares with the same start, and
 * compared when it ends. Its `edit_file` edits are known from its facts; this finds what `run` changed (a
 * formatter, a code generator, `sed -i`), so its parent's gate sees those as edits too. The rules' snapshot
 * exclusions (installed dependencies, caches), `.git` and `.rein/` are left out.
 *
 * @example const changes = watchChildChanges({ workspace, runDir, exclude }); await child.done; changes.changed() // ['src/a.py']
 */
export function watchChildChanges(options: { workspace: string; runDir: string; exclude: readonly string[] }): { changed(): string[] } {
  const excluded = snapshotExclusion(options.exclude);
  const path = join(options.runDir, FILE);
  let before = readKept(path);
  if (!before) {
    before = fingerprint(options.workspace, excluded);
    // A cut file (a kill while writing) reads as none: the resumed child fingerprints again.
    if (before) writeFileSync(path, JSON.stringify(before));
  }
  return {
    changed() {
      const after = fingerprint(options.workspace, excluded);
      if (!before || !after) return [];
      const paths = new Set([...Object.keys(before), ...Object.keys(after)]);
      return [...paths].filter((file) => before[file] !== after[file]).sort();
    },
  };
}

function readKept(path: string): Fingerprint | null {
  if (!existsSync(path)) return null;
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fingerprint) : null;
  } catch {
    return null;
  }
}

/** The workspace's files (symlinks as links, not followed), or null past `MAX_FILES`. */
function fingerprint(workspace: string, excluded: (path: string, isDir: boolean) => boolean): Fingerprint | null {
  const prints: Fingerprint = {};
  let count = 0;
  const walk = (dir: string, prefix: string): boolean => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return true;
    }
    for (const name of names) {
      const relative = prefix ? `${prefix}/${name}` : name;
      const full = join(dir, name);
      let stat: BigIntStats;
      try {
        stat = lstatSync(full, { bigint: true });
      } catch {
        continue;
      }
      if (excluded(relative, stat.isDirectory())) continue;
      if (stat.isDirectory()) {
        if (!walk(full, relative)) return false;
        continue;
      }
      if (++count > MAX_FILES) return false;
      prints[relative] = `${stat.size}:${stat.mode}:${stat.mtimeNs}`;
    }
    return true;
  };
  return walk(workspace, '') ? prints : null;
}
