import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './cli.js';

/** A harness process with a run sandbox and a tool context, running `body`; it prints a line once the sandbox is being created. */
export function spawnHarness(sandboxKind: string, root: string, marker: string, body: string) {
  const dist = (file: string) => JSON.stringify(pathToFileURL(path.join(repoRoot, 'dist', file)).href);
  return spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `
    const { runTool } = await import(${dist('tools/run.js')});
    const { createRunSandbox } = await import(${dist('tools/sandbox/run-sandbox.js')});
    const policy = { deny: [], sandbox: process.env.SANDBOX, network: false, envAllow: ['REIN_TEST_MARKER'], timeoutSeconds: 300 };
    process.stdout.write('creating\\n');
    const sandbox = createRunSandbox({ root: process.env.ROOT, policy });
    const ctx = { root: process.env.ROOT, signal: new AbortController().signal, limits: { outputChars: 6000, viewLines: 100, maxHits: 50 }, policy, sandbox };
    ${body}
  `,
    ],
    { env: { ...process.env, MARKER: marker, ROOT: root, SANDBOX: sandboxKind, REIN_TEST_MARKER: marker }, stdio: ['ignore', 'pipe', 'ignore'] },
  );
}
