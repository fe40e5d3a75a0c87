import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const pending = new Set<string>();
let hooked = false;

/**
 * A fresh, realpath'd temp directory that is removed again: by
 * `removeTempDirs()` (call it after each test), and at the latest when the
 * process exits, so no test run leaves directories behind.
 *
 * @example afterEach(removeTempDirs); const dir = makeTempDir('my-test-');
 */
export function makeTempDir(prefix = 'rein-test-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  pending.add(dir);
  if (!hooked) {
    hooked = true;
    process.once('exit', removeTempDirs);
  }
  return dir;
}

/** Removes every directory `makeTempDir` made that is still there. */
export function removeTempDirs(): void {
  for (const dir of pending) rmSync(dir, { recursive: true, force: true });
  pending.clear();
}
