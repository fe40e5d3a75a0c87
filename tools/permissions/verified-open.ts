import fs from 'node:fs';
import path from 'node:path';
import { HiddenPathError, MissingFileError, PathEscapeError } from '../../lib/errors.js';
import { type Hiding, hiddenReason, isInside } from './path-guard.js';

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY, O_DIRECTORY } = fs.constants;

/** A workspace file opened once: every read goes through `fd`, never through its name again. */
export interface OpenedFile {
  readonly fd: number;
  /** Where the opened file is, as the kernel says (`/proc/self/fd/<fd>`), checked to be inside the workspace. */
  readonly real: string;
  readonly stat: fs.Stats;
  close(): void;
}

/**
 * Opens a file the path guard resolved and checks what was opened, not the
 * name: between the guard's check and the open a command (a background job)
 * can swap a symlink in. The last component is opened no-follow, a FIFO or
 * device is neither waited on nor read (non-blocking, then `fstat`), and the
 * opened descriptor's real path must still be inside the workspace and not
 * hidden, which catches a directory above it swapped for a link. Throws
 * `PathEscapeError`, `HiddenPathError` or `MissingFileError`.
 *
 * @example const file = openVerified(root, real, 'src/a.py', ctx.policy); try { read(file.fd) } finally { file.close() }
 */
export function openVerified(root: string, real: string, shown: string, hiding: Hiding = {}): OpenedFile {
  let fd: number;
  try {
    fd = fs.openSync(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new MissingFileError(`${shown} does not exist`);
    if (code === 'ELOOP') throw new PathEscapeError(`${shown} was replaced by a symlink while rein opened it`);
    throw error;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (stat.isDirectory()) throw new MissingFileError(`${shown} is a directory, not a file`);
    if (!stat.isFile()) throw new MissingFileError(`${shown} is not a regular file`);
    const opened = verifiedPath(root, fd, shown, hiding, false);
    return { fd, real: opened, stat, close: () => fs.closeSync(fd) };
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

/**
 * Opens the directory holding a file about to be replaced, checked as `openVerified` checks a file, so the
 * temporary file and the rename happen in a directory known to be inside the workspace.
 */
export function openVerifiedDir(root: string, dir: string, shown: string, hiding: Hiding = {}): { fd: number; real: string; close(): void } {
  const fd = fs.openSync(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  try {
    return { fd, real: verifiedPath(root, fd, shown, hiding, true), close: () => fs.closeSync(fd) };
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

/** Where descriptor `fd` really is; throws when that is outside `root` or hidden from the agent. */
export function verifiedPath(root: string, fd: number, shown: string, hiding: Hiding, isDirectory: boolean): string {
  const opened = fs.readlinkSync(`/proc/self/fd/${fd}`);
  const realRoot = fs.realpathSync(root);
  if (!path.isAbsolute(opened) || !isInside(realRoot, opened)) {
    throw new PathEscapeError(`${JSON.stringify(shown)} was changed while rein opened it: it now leads outside the workspace (to ${opened})`);
  }
  const why = hiddenReason(realRoot, opened, hiding, isDirectory);
  if (why !== null) throw new HiddenPathError(`${JSON.stringify(shown)} is hidden from the agent: ${why}`);
  return opened;
}
