import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

// Issue 25 (forged reports, "inherited fds"): a descriptor the harness itself inherited (here fd 6, a pipe its parent
// reads, fd 200 in the harness) must not reach commands, or a command could write to whatever the harness's parent listens on.
describe.each(['bwrap', 'none'] as const)('descriptors the harness inherited (%s)', (sandboxKind) => {
  it('are not open in commands: a command sees only its stdin, stdout and stderr', async () => {
    const root = makeTempDir();
    const runSandbox = JSON.stringify(pathToFileURL(path.join(repoRoot, 'dist', 'tools', 'sandbox', 'run-sandbox.js')).href);
    // bash hands the harness the pipe as fd 200, as a parent process would leave one open by mistake.
    const child = spawn(
      'bash',
      [
        '-c',
        'exec 200>&6 6>&-; exec "$0" "$@"',
        process.execPath,
        '--input-type=module',
        '-e',
        `
      const { createRunSandbox } = await import(${runSandbox});
      const policy = { deny: [], sandbox: ${JSON.stringify(sandboxKind)}, network: false, envAllow: [], timeoutSeconds: 30 };
      const sandbox = createRunSandbox({ root: ${JSON.stringify(root)}, policy });
      const result = await sandbox.runCommand('echo forged >&200; ls /proc/self/fd | tr "\\\\n" " "', { timeoutMs: 10000, signal: new AbortController().signal, outputCap: 6000 });
      process.stdout.write(result.output.finish());
      await sandbox.dispose();
    `,
      ],
      { stdio: ['ignore', 'pipe', 'inherit', 'ignore', 'ignore', 'ignore', 'pipe'] },
    );
    let inherited = '';
    (child.stdio as unknown as Readable[])[6]!.on('data', (chunk: Buffer) => {
      inherited += chunk.toString();
    });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    await new Promise((resolve) => child.on('close', resolve));
    expect(inherited).toBe('');
    expect(out).toContain('200: Bad file descriptor');
    // ls holds one more, for the directory it lists.
    expect(out.trim().split('\n').at(-1)).toMatch(/^0 1 2( 3)?$/);
  }, 30_000);
});
