import { describe, expect, it } from 'vitest';
import { TMPFS_BYTES } from '../../tools/sandbox/launch/bubblewrap.js';
import { openRunSandbox } from '../helpers/run-sandbox.js';
import { makeTempDir } from '../helpers/workspace.js';

// Issue 25, item 11: the sandbox's private folders were tmpfs mounts as large as half the machine's memory each.
describe('the sandbox private folders (bubblewrap)', () => {
  it('are each bounded to TMPFS_BYTES, /dev/shm too', async () => {
    const root = makeTempDir();
    const sandbox = openRunSandbox(root, { sandbox: 'bwrap' });
    const result = await sandbox.runCommand('for d in /tmp /var/tmp "$HOME" /dev/shm; do df -B1 --output=size "$d" | tail -1; done', {
      timeoutMs: 10_000,
      signal: new AbortController().signal,
      outputCap: 6000,
    });
    expect(result.exitCode).toBe(0);
    expect(result.output.finish().trim().split('\n').map(Number)).toEqual([TMPFS_BYTES, TMPFS_BYTES, TMPFS_BYTES, TMPFS_BYTES]);
  });

  // /dev was a tmpfs of half the machine's memory that root in the sandbox could fill.
  it('/dev stores nothing, and its devices still work', async () => {
    const sandbox = openRunSandbox(makeTempDir(), { sandbox: 'bwrap' });
    const result = await sandbox.runCommand('head -c 4096 /dev/zero > /dev/big || echo refused; echo ok > /dev/null && head -c 3 /dev/urandom | wc -c', {
      timeoutMs: 10_000,
      signal: new AbortController().signal,
      outputCap: 6000,
    });
    expect(result.output.finish()).toMatch(/Read-only file system\nrefused\n3\n$/);
  });
});
