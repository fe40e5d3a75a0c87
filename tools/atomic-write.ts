import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Writes a file so readers see either the old or the new content, never a
 * half-written one: the data goes to a temporary file in the same directory
 * (same file system, so the rename is atomic), then replaces the target.
 * An existing file keeps its permission bits and, where allowed, its owner.
 *
 * @example writeFileAtomic('/repo/src/app.py', 'print(1)\n');
 */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  const existing = fs.statSync(file, { throwIfNoEntry: false });
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.rein-tmp`);
  try {
    fs.writeFileSync(temp, data, { flag: 'wx', mode: existing ? existing.mode & 0o7777 : 0o666 });
    if (existing) preserveMetadata(temp, existing);
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}

function preserveMetadata(temp: string, original: fs.Stats): void {
  // The creation mode is filtered by the umask; set it explicitly.
  fs.chmodSync(temp, original.mode & 0o7777);
  try {
    fs.chownSync(temp, original.uid, original.gid);
  } catch {
    // Only root may give a file away; anyone else keeps their own ownership.
  }
}
