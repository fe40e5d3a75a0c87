import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveSandbox } from '../../../tools/sandbox/launch/bubblewrap.js';
import { repoRoot } from '../../helpers/cli.js';
import { killQuietly, processesWithArgument, uniqueMarker } from '../../helpers/processes.js';
import { waitUntil } from '../../helpers/wait.js';
import { makeTempDir } from '../../helpers/workspace.js';
import { EVERYTHING } from './mcp-fixtures.js';

const leftovers: number[] = [];
afterEach(() => killQuietly(leftovers.splice(0)));

/**
 * A harness process (rein's built hub from dist/) that starts the everything server under a shell that outlives it
 * (`sleep` after the server exits on its stdin's end, as a server that ignores EOF would), with `marker` among the
 * shell's arguments; then it waits to be killed.
 */
function spawnHarnessWithServer(sandbox: string, marker: string) {
  const hub = JSON.stringify(pathToFileURL(path.join(repoRoot, 'dist', 'actors', 'mcp', 'hub.js')).href);
  const schema = JSON.stringify(pathToFileURL(path.join(repoRoot, 'dist', 'rules', 'mcp-servers.js')).href);
  const root = makeTempDir('rein-mcp-kill-ws-');
  const runDir = makeTempDir('rein-mcp-kill-run-');
  const body = `
    const { openMcpHub } = await import(${hub});
    const { mcpServerSchema } = await import(${schema});
    const servers = { every: mcpServerSchema.parse({ command: 'bash', args: ['-c', '"$0" "$1" stdio; sleep "$2"', process.execPath, ${JSON.stringify(EVERYTHING)}, ${JSON.stringify(marker)}] }) };
    const policy = { deny: [], sandbox: ${JSON.stringify(sandbox)}, network: false, envAllow: [], timeoutSeconds: 30 };
    const opened = await openMcpHub({ servers, root: ${JSON.stringify(root)}, policy, env: process.env, runDir: ${JSON.stringify(runDir)} });
    process.stdout.write(opened.states()[0].state + '\\n');
    setInterval(() => {}, 1000);
  `;
  return spawn(process.execPath, ['--input-type=module', '-e', body], { stdio: ['ignore', 'pipe', 'inherit'] });
}

const sandboxes = ['none', ...(resolveSandbox({ sandbox: 'auto', network: false }).kind === 'bwrap' ? ['bwrap'] : [])];

describe('MCP servers die with a harness killed by SIGKILL', () => {
  it.each(sandboxes)('sandbox %s: the server and everything it started are gone', async (sandbox) => {
    const marker = uniqueMarker();
    const harness = spawnHarnessWithServer(sandbox, marker);
    leftovers.push(harness.pid!);
    let out = '';
    harness.stdout.on('data', (chunk) => {
      out += String(chunk);
    });
    await waitUntil(() => out.includes('\n'), 'the harness to start its server', 20_000);
    expect(out.trim()).toBe('ready');
    const servers = processesWithArgument(marker);
    expect(servers.length).toBeGreaterThan(0);
    leftovers.push(...servers);
    harness.kill('SIGKILL');
    await waitUntil(() => processesWithArgument(marker).length === 0, 'the server processes to end', 10_000);
  });
});
