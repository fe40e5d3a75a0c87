import fs from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { WORKSPACE_REIN_DIR } from '../lib/state/harness-files.js';

/** Directories never searched: VCS internals, installed dependencies, rein's own state. */
const SKIPPED_DIRS: ReadonlySet<string> = new Set(['.git', 'node_modules', WORKSPACE_REIN_DIR]);

interface IgnoreLevel {
  base: string;
  rules: Ignore;
}

/**
 * Yields the regular files below `start` (a file or directory inside `root`)
 * in sorted path order, depth first. `.gitignore` files from `root` down are
 * honoured (a deeper file can re-include what a shallower one ignored), unless
 * `start` is itself ignored: then the caller asked for it explicitly and gets it.
 * Symlinks are not followed, so the walk cannot loop or leave the workspace.
 *
 * @example for (const file of walkFiles('/repo', '/repo/src')) console.log(file);
 */
export function* walkFiles(root: string, start: string): Generator<string> {
  const stat = fs.lstatSync(start);
  if (stat.isFile()) {
    yield start;
    return;
  }
  if (!stat.isDirectory()) return;
  const levels = ancestorLevels(root, start);
  const honourIgnores = !isIgnored(levels, start, true);
  yield* walkDirectory(start, honourIgnores ? levels : [], honourIgnores);
}

function* walkDirectory(dir: string, levels: IgnoreLevel[], honourIgnores: boolean): Generator<string> {
  const here = honourIgnores ? withLevel(levels, dir) : levels;
  const entries = readSortedEntries(dir);
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (SKIPPED_DIRS.has(entry.name) || isIgnored(here, full, true)) continue;
      yield* walkDirectory(full, here, honourIgnores);
    } else if (entry.isFile() && !isIgnored(here, full, false)) {
      yield full;
    }
  }
}

function readSortedEntries(dir: string): fs.Dirent[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return []; // unreadable directories are skipped, as grep -r does with a warning
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The `.gitignore` levels from `root` down to `dir`'s parent (`dir` itself is added by the walk). */
function ancestorLevels(root: string, dir: string): IgnoreLevel[] {
  const chain: string[] = [];
  for (let at = path.dirname(dir); at.startsWith(root) && at !== dir; at = path.dirname(at)) {
    chain.unshift(at);
    if (at === root) break;
  }
  return chain.reduce<IgnoreLevel[]>((levels, at) => withLevel(levels, at), []);
}

function withLevel(levels: IgnoreLevel[], dir: string): IgnoreLevel[] {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, '.gitignore'), 'utf8');
  } catch {
    return levels;
  }
  return [...levels, { base: dir, rules: ignore().add(text) }];
}

/** Deeper `.gitignore` files win over shallower ones, as in git. */
function isIgnored(levels: IgnoreLevel[], full: string, isDir: boolean): boolean {
  let ignored = false;
  for (const { base, rules } of levels) {
    const rel = path.relative(base, full).split(path.sep).join('/');
    if (rel === '' || rel === '..' || rel.startsWith('../')) continue;
    const verdict = rules.test(isDir ? `${rel}/` : rel);
    if (verdict.ignored) ignored = true;
    else if (verdict.unignored) ignored = false;
  }
  return ignored;
}
