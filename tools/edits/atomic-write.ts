import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { recordTempFile } from './temp-file-journal.js';

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_RDONLY, O_DIRECTORY } = fs.constants;

/** The directory a file is replaced in, held open; `check` runs before the rename (it throws to stop it). */
interface TargetDir {
  fd: number;
  check?: () => void;
}

/**
 * Writes a file so readers see either the old or the new content, never a
 * half-written one: the data goes to a temporary file in the same directory
 * (same file system, so the rename is atomic), then replaces the target.
 * An existing file keeps its permission bits and, where allowed, its owner.
 *
 * Both the temporary file and the rename are made relative to the directory
 * held open (`/proc/self/fd/<fd>/<name>`, Node's stand-in for openat and
 * renameat), never through its path again: a directory swapped for a symlink
 * after it was opened cannot send the write, or a temporary file, elsewhere,
 * and the rename replaces a link planted under the target's name rather than
 * writing through it. `dir` defaults to the file's directory, opened no-follow.
 *
 * The temporary file is recorded in the user's state dir while it exists (tools/edits/temp-file-journal.ts): one that a
 * SIGKILL leaves behind is removed at the start of the next run, before any command or model sees it.
 *
 * @example writeFileAtomic('/repo/src/app.py', 'print(1)\n');
 */
export function writeFileAtomic(file: string, data: string | Uint8Array, options: { dir?: TargetDir; original?: fs.Stats } = {}): void {
  const { dir } = options;
  const held = dir ?? { fd: fs.openSync(path.dirname(file), O_RDONLY | O_DIRECTORY | O_NOFOLLOW) };
  const name = path.basename(file);
  const at = (entry: string) => `/proc/self/fd/${held.fd}/${entry}`;
  const temp = `.${name}.${randomBytes(6).toString('hex')}.rein-tmp`;
  const recorded = recordTempFile(held.fd, temp);
  try {
    const existing = options.original ?? fs.lstatSync(at(name), { throwIfNoEntry: false });
    const bits = existing?.isFile() ? existing.mode & 0o7777 : 0o666;
    const fd = fs.openSync(at(temp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, bits);
    try {
      fs.writeFileSync(fd, data);
      // The creation mode is filtered by the umask; set it explicitly.
      if (existing?.isFile()) fs.fchmodSync(fd, bits);
      if (existing?.isFile()) keepOwner(fd, existing);
    } finally {
      fs.closeSync(fd);
    }
    held.check?.();
    fs.renameSync(at(temp), at(name));
  } catch (error) {
    fs.rmSync(at(temp), { force: true });
    throw error;
  } finally {
    recorded();
    if (!dir) fs.closeSync(held.fd);
  }
}

function keepOwner(fd: number, original: fs.Stats): void {
  try {
    fs.fchownSync(fd, original.uid, original.gid);
  } catch {
    // Only root may give a file away; anyone else keeps their own ownership.
  }
}
