import os from 'node:os';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { DEFAULT_HIDDEN_FILES, ETC_SECRET_PATHS, ETC_SSH_KEY_SUFFIX, HOME_CREDENTIAL_PATHS } from './credential-paths.js';

/** The rules keys that decide what is hidden (`permissions.readable`, `permissions.hidden`). */
interface HidingRules {
  /** Real, absolute workspace root. */
  root: string;
  /** The user's home directory (`~` in the rules). */
  home?: string;
  readable?: readonly string[];
  hidden?: readonly string[];
}

/** Answers "may commands and file tools see this path?" for one run's rules. */
export interface HiddenMatcher {
  /** Why `absolute` (a real path) is hidden, or null when it is visible as far as the rules go. */
  reason(absolute: string, isDirectory: boolean): string | null;
  /** Credential paths that exist nowhere in particular: every one, absolute, for masking below visible folders. */
  credentialPaths: readonly string[];
  /** Absolute paths from `permissions.hidden`. */
  hiddenHostPaths: readonly string[];
  /** Host paths from `permissions.readable`: as written, and absolute. */
  readableHostPaths: ReadonlyArray<{ entry: string; path: string }>;
}

/** Whether a rules entry names a host path (`/…`, `~`, `~/…`) rather than a workspace pattern. */
function isHostEntry(entry: string): boolean {
  return entry.startsWith('/') || entry === '~' || entry.startsWith('~/');
}

/** `~` and `~/x` against `home`; other entries unchanged. */
function expandHome(entry: string, home: string): string {
  if (entry === '~') return home;
  return entry.startsWith('~/') ? path.join(home, entry.slice(2)) : entry;
}

/** `child` is `parent` or lies below it (whole path segments); both absolute and normalized, as `path.resolve` and `realpath` return them. */
export function isWithin(parent: string, child: string): boolean {
  if (child === parent) return true;
  return child.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep);
}

/** Whether `absolute` or one of its ancestors is in `set` (a walk up the path, not a scan of the set). */
function underAny(set: ReadonlySet<string>, absolute: string): boolean {
  for (let end = absolute.length; end > 0; end = absolute.lastIndexOf(path.sep, end - 1)) {
    if (set.has(absolute.slice(0, end))) return true;
  }
  return false;
}

const cache = new Map<string, HiddenMatcher>();

/**
 * The matcher for a run's rules (cached: the file tools ask on every call).
 * Hidden, in this order: credential paths (`HOME_CREDENTIAL_PATHS`, secrets in
 * /etc), `.env*` files outside the workspace, host paths in
 * `permissions.hidden`, and inside the workspace the gitignore-style patterns
 * of `permissions.hidden` and the default `.env*` files, unless a pattern in
 * `permissions.readable` names them. Nothing un-hides a credential path.
 *
 * @example createHiddenMatcher({ root: '/w/repo', home: '/home/me' }).reason('/w/repo/.env', false) // '.env files in the workspace are hidden unless permissions.readable names them'
 */
export function createHiddenMatcher(rules: HidingRules): HiddenMatcher {
  const home = rules.home ?? os.homedir();
  const key = JSON.stringify([rules.root, home, rules.readable ?? [], rules.hidden ?? []]);
  let matcher = cache.get(key);
  if (!matcher) {
    if (cache.size > 64) cache.clear();
    matcher = buildMatcher(rules.root, home, rules.readable ?? [], rules.hidden ?? []);
    cache.set(key, matcher);
  }
  return matcher;
}

function buildMatcher(root: string, home: string, readable: readonly string[], hidden: readonly string[]): HiddenMatcher {
  const credentialPaths = [...HOME_CREDENTIAL_PATHS.map((rel) => path.join(home, rel)), ...ETC_SECRET_PATHS.map((rel) => path.join('/etc', rel))];
  const credentialSet = new Set(credentialPaths);
  const hiddenHostPaths = hidden.filter(isHostEntry).map((entry) => path.resolve(expandHome(entry, home)));
  const hiddenHostSet = new Set(hiddenHostPaths);
  const readableHostPaths = readable.filter(isHostEntry).map((entry) => ({ entry, path: path.resolve(expandHome(entry, home)) }));
  const hiddenPatterns = patternsOf(hidden);
  const readablePatterns = patternsOf(readable);
  const defaultFiles = ignore().add([...DEFAULT_HIDDEN_FILES]);
  return {
    credentialPaths,
    hiddenHostPaths,
    readableHostPaths,
    reason(absolute, isDirectory) {
      if (underAny(credentialSet, absolute) || isSshHostKey(absolute)) return 'a credential path; rein never shows these to commands or file tools';
      const inWorkspace = isWithin(root, absolute);
      if (!inWorkspace && !isDirectory && defaultFiles.ignores(path.basename(absolute))) return '.env files outside the workspace are never shown';
      if (underAny(hiddenHostSet, absolute)) return 'hidden by permissions.hidden';
      if (!inWorkspace || absolute === root) return null;
      const rel = absolute
        .slice(root.length + (root.endsWith(path.sep) ? 0 : 1))
        .split(path.sep)
        .join('/');
      const asked = isDirectory ? `${rel}/` : rel;
      if (readablePatterns?.ignores(asked)) return null;
      if (hiddenPatterns?.ignores(asked)) return 'hidden by permissions.hidden';
      if (!isDirectory && defaultFiles.ignores(path.basename(absolute))) return '.env files in the workspace are hidden unless permissions.readable names them';
      return null;
    },
  };
}

function patternsOf(entries: readonly string[]): Ignore | null {
  const patterns = entries.filter((entry) => !isHostEntry(entry)).map((entry) => entry.replace(/^\.\//, ''));
  return patterns.length > 0 ? ignore().add(patterns) : null;
}

function isSshHostKey(absolute: string): boolean {
  return path.dirname(absolute) === '/etc/ssh' && absolute.endsWith(ETC_SSH_KEY_SUFFIX);
}
