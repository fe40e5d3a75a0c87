import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Made for one test: `removeTempDirs()` removes them. */
const perTest = new Set<string>();
/** Made for the whole test file (`{ until: 'exit' }`): removed when the process exits. */
const perProcess = new Set<string>();
let hooked = false;

interface TempDirOptions {
  /**
   * `test` (default): removed by `removeTempDirs()` (call it after each test) or at the latest when the process
   * exits; `exit`: kept for every test of the file (a fixture made once), removed when the process exits.
   */
  until?: 'test' | 'exit';
}

/**
 * A fresh, realpath'd temp directory that is removed again, so no test run leaves directories behind.
 *
 * @example afterEach(removeTempDirs); const dir = makeTempDir('my-test-');
 */
export function makeTempDir(prefix = 'rein-test-', options: TempDirOptions = {}): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  (options.until === 'exit' ? perProcess : perTest).add(dir);
  if (!hooked) {
    hooked = true;
    process.once('exit', removeEverything);
    // A test runner ends its workers with a signal, which skips 'exit': remove them then too, and end as the signal would.
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(signal, () => endBySignal(signal));
  }
  return dir;
}

/** Removes every directory `makeTempDir` made for a test that is still there. */
export function removeTempDirs(): void {
  removeAll(perTest);
}

function removeEverything(): void {
  removeTempDirs();
  removeAll(perProcess);
}

/** A signal nobody else handles ends the process: the directories go first. One the program handles is left to it (its exit removes them). */
function endBySignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 0) return;
  removeEverything();
  process.kill(process.pid, signal);
}

function removeAll(dirs: Set<string>): void {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs.clear();
}
