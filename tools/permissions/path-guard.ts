import fs from 'node:fs';
import path from 'node:path';
import { HiddenPathError, PathEscapeError } from '../../lib/errors.js';
import { hostTrustedReason } from '../../lib/state/harness-files.js';
import { createHiddenMatcher } from '../sandbox/plan/hidden-paths.js';
import type { CommandPolicy } from '../types.js';

/**
 * The rules keys that hide paths from the file tools as from commands, and the home directory whose credential
 * paths are hidden (the process's own, `os.homedir()`, when unset).
 */
export type Hiding = Pick<CommandPolicy, 'readable' | 'hidden'> & { home?: string };

/** Symlink hops followed before giving up, like the kernel's ELOOP limit. */
const MAX_LINK_HOPS = 40;

/**
 * Resolves a path given by the model to an absolute, symlink-free path inside
 * the workspace, or throws `PathEscapeError`. Links are resolved on the real
 * file system, including dangling links and links above not-yet-existing
 * files, so a write below `ws/link -> /etc` is refused before it happens.
 *
 * Callers must use the returned path, not the original string: `link/../x`
 * is resolved lexically first (to `x`), which can differ from what the kernel
 * would do but never leaves the workspace.
 *
 * What the sandbox hides from commands is refused too (`HiddenPathError`),
 * judged on the real path: `.env*` files unless `permissions.readable` names
 * them, `permissions.hidden`, and credential paths when the workspace holds
 * the home directory.
 *
 * @example resolveInWorkspace('/work/repo', 'src/app.ts') // '/work/repo/src/app.ts'
 */
export function resolveInWorkspace(root: string, relOrAbs: string, hiding: Hiding = {}): string {
  if (relOrAbs.includes('\0')) throw new PathEscapeError(`${quote(relOrAbs)} contains a NUL byte`);
  const lexical = path.resolve(root, relOrAbs);
  if (!isInside(root, lexical)) {
    throw new PathEscapeError(`${quote(relOrAbs)} is outside the workspace (${root})`);
  }
  const real = resolveLinks(lexical, 0);
  if (!isInside(root, real)) {
    throw new PathEscapeError(`${quote(relOrAbs)} leads outside the workspace through a symlink (to ${real})`);
  }
  const why = hiddenReason(root, real, hiding);
  if (why !== null) throw new HiddenPathError(`${quote(relOrAbs)} is hidden from the agent: ${why}`);
  return real;
}

function isExistingDirectory(real: string): boolean {
  try {
    return fs.statSync(real, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch (error) {
    // A path through a file names nothing; the tool that opens it says so.
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return false;
    throw error;
  }
}

/**
 * Why the sandbox hides a real path inside the workspace from the agent, or
 * null; `grep` skips such files as commands cannot see them.
 *
 * @example hiddenReason('/work/repo', '/work/repo/.env', {}) // '.env files in the workspace are hidden unless permissions.readable names them'
 */
export function hiddenReason(root: string, real: string, hiding: Hiding = {}, isDirectory?: boolean): string | null {
  const directory = isDirectory ?? isExistingDirectory(real);
  return createHiddenMatcher({ root, home: hiding.home, readable: hiding.readable, hidden: hiding.hidden }).reason(real, directory);
}

/**
 * `resolveInWorkspace` for a file the agent wants to change: rein's own
 * files (its `.rein` state, the rules files) are refused as well, so an
 * agent cannot plant code that the next run imports.
 *
 * @example resolveWritableInWorkspace('/work/repo', 'rein.config.mjs') // throws PathEscapeError
 */
export function resolveWritableInWorkspace(
  root: string,
  relOrAbs: string,
  // Stryker disable next-line ArrayDeclaration: a default naming a file that does not exist protects nothing, as [] does
  protectedFiles: readonly string[] = [],
  hiding: Hiding = {},
): string {
  const file = resolveInWorkspace(root, relOrAbs, hiding);
  // Judged on the written path and on the real one: a link to .git/config is .git/config.
  const realRoot = fs.realpathSync(root);
  const reason = hostTrustedReason(path.relative(realRoot, path.resolve(realRoot, relOrAbs))) ?? hostTrustedReason(toWorkspaceRelative(realRoot, file));
  if (reason) throw new PathEscapeError(`${quote(relOrAbs)} ${reason}; the agent may not change it`);
  if (protectedFiles.some((protectedFile) => isInside(realOrSelf(protectedFile), file)))
    throw new PathEscapeError(
      `${quote(relOrAbs)} belongs to rein for this run (the rules file it was started with, or a path a git configuration names); the agent may not change it`,
    );
  return file;
}

/** The workspace-relative form of a path inside it, with `/` separators; `.` for the root. */
export function toWorkspaceRelative(root: string, absolute: string): string {
  const rel = path.relative(root, absolute);
  return rel === '' ? '.' : rel.split(path.sep).join('/');
}

/** Whether `candidate` is `root` or below it (whole segments compared). */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  // `..foo` is a legal name inside the root, so compare whole segments ('' is the root itself).
  return rel !== '..' && !rel.startsWith('..' + path.sep) && !path.isAbsolute(rel);
}

/**
 * realpath that also works when the tail of the path does not exist yet:
 * the longest existing prefix is resolved, and a dangling link is followed
 * by hand so its target is what gets checked.
 */
function resolveLinks(absolute: string, hops: number): string {
  if (hops > MAX_LINK_HOPS) throw new PathEscapeError(`too many levels of symbolic links at ${absolute}`);
  // Stryker disable next-line BlockStatement: realpath is the fast path; the walk below resolves the same links by hand
  try {
    return fs.realpathSync(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new PathEscapeError(`too many levels of symbolic links at ${absolute}`);
    // Stryker disable next-line ConditionalExpression: other errors (ENAMETOOLONG, EACCES) come back from the stat hiddenReason makes of the same path, so swallowing them here only changes which call throws
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
  }
  const parent = path.dirname(absolute);
  // Stryker disable next-line ConditionalExpression: only '/' is its own parent, and realpath('/') never fails, so the walk stops before
  if (parent === absolute) return absolute;
  const candidate = path.join(resolveLinks(parent, hops), path.basename(absolute));
  const target = readLinkOrNull(candidate);
  return target === null ? candidate : resolveLinks(path.resolve(path.dirname(candidate), target), hops + 1);
}

function readLinkOrNull(file: string): string | null {
  try {
    return fs.readlinkSync(file);
  } catch {
    return null;
  }
}

function quote(text: string): string {
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}...` : text);
}

function realOrSelf(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}
