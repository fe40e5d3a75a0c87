import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McpHub } from '../../../actors/mcp/hub.js';
import { processesWithArgument } from '../../helpers/processes.js';
import { waitUntil } from '../../helpers/wait.js';
import { defaultPolicy, makeTempDir } from '../../helpers/workspace.js';
import { EVERYTHING, FILESYSTEM, MEMORY, type OpenedHub, openHub, stderrLog, stdio } from './mcp-fixtures.js';

const open: McpHub[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((hub) => hub.close()));
});

async function hubWith(...args: Parameters<typeof openHub>): Promise<OpenedHub> {
  const opened = await openHub(...args);
  open.push(opened.hub);
  return opened;
}

function states(opened: OpenedHub, server: string): string[] {
  return opened.notes.flatMap((note) => (note.kind === 'mcp_server' && note.server === server ? [note.state] : []));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('stdio MCP servers (reference servers from npm, started with node)', () => {
  it("offers the everything server's tools as mcp__<server>__<tool> and a call succeeds", async () => {
    const opened = await hubWith({ every: stdio([EVERYTHING, 'stdio']) });
    expect(opened.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['mcp__every__echo', 'mcp__every__get-sum']));
    const outcome = await opened.call('mcp__every__echo', { message: 'hello' });
    expect(outcome).toMatchObject({ ok: true, content: 'Echo: hello', effect: { kind: 'mcp', server: 'every', tool: 'echo', outcome: 'ok', readOnly: true } });
    expect(states(opened, 'every')).toEqual(['starting', 'ready']);
    // The server's stderr went to the run directory.
    expect(stderrLog(opened.runDir, 'every')).toContain('Starting default (STDIO) server');
  });

  it('a call that outlives callTimeoutSeconds is cancelled and reported; the server stays usable', async () => {
    const opened = await hubWith({ every: stdio([EVERYTHING, 'stdio'], { callTimeoutSeconds: 0.5 }) });
    const started = Date.now();
    const outcome = await opened.call('mcp__every__trigger-long-running-operation', { duration: 20, steps: 2 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(outcome).toMatchObject({ ok: false, effect: { outcome: 'timeout' } });
    expect(outcome.content).toMatch(/^Tool error: every did not answer within 0.5 s/);
    expect(await opened.call('mcp__every__echo', { message: 'still here' })).toMatchObject({ ok: true, content: 'Echo: still here' });
  });

  it('a read-only call cut by a crash is retried once on the restarted server', async () => {
    const opened = await hubWith({ every: stdio([EVERYTHING, 'stdio']) });
    const handle = opened.hub.handles[0]!;
    const firstPid = handle.pid!;
    const call = opened.call('mcp__every__trigger-long-running-operation', { duration: 1, steps: 1 });
    setTimeout(() => process.kill(-firstPid, 'SIGKILL'), 300);
    const outcome = await call;
    expect(outcome).toMatchObject({ ok: true, effect: { outcome: 'ok' } });
    expect(outcome.content).toContain('Long running operation completed');
    expect(states(opened, 'every')).toEqual(['starting', 'ready', 'restarting', 'starting', 'ready']);
    expect(handle.pid).not.toBe(firstPid);
  });

  it('a call that may have taken effect is not repeated after a crash: the model is told', async () => {
    const opened = await hubWith({ memory: stdio([MEMORY], { env: { MEMORY_FILE_PATH: path.join(makeTempDir('rein-mcp-memory-'), 'memory.json') } }) });
    const handle = opened.hub.handles[0]!;
    const pid = handle.pid!;
    // Frozen, the server cannot answer: the call is in flight when it dies.
    process.kill(pid, 'SIGSTOP');
    const call = opened.call('mcp__memory__create_entities', { entities: [{ name: 'a', entityType: 'b', observations: [] }] });
    setTimeout(() => process.kill(-pid, 'SIGKILL'), 200);
    const outcome = await call;
    expect(outcome).toMatchObject({ ok: false, effect: { kind: 'mcp', outcome: 'crashed', readOnly: false } });
    expect(outcome.content).toMatch(/crashed during the call; it is restarting, and the call was not repeated/);
    await waitUntil(() => handle.state === 'ready', 'the memory server to restart');
    expect(await opened.call('mcp__memory__read_graph', {})).toMatchObject({ ok: true });
  });

  it('a server that never answers the handshake fails after startupTimeoutSeconds; its process is ended', async () => {
    const started = Date.now();
    const opened = await hubWith({ mute: stdio(['-e', 'setInterval(() => {}, 1000)'], { startupTimeoutSeconds: 1 }) });
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(states(opened, 'mute')).toEqual(['starting', 'failed']);
    const failed = opened.notes.find((note) => note.kind === 'mcp_server' && note.state === 'failed');
    expect(failed).toMatchObject({ problem: 'the server did not start within 1 s' });
    expect(opened.tools).toEqual([]);
    expect(stderrLog(opened.runDir, 'mute')).toMatch(/the server exited \(SIGTERM\)/);
  });

  it('a server that exits at start-up fails with its exit and last stderr lines', async () => {
    const opened = await hubWith({ broken: stdio(['-e', 'console.error("cannot open the index"); process.exit(3)']) });
    expect(opened.notes.find((note) => note.kind === 'mcp_server' && note.state === 'failed')).toMatchObject({
      problem: expect.stringMatching(/the server exited \(code 3\): cannot open the index/),
    });
  });

  it('a command that does not exist fails at once with why', async () => {
    const opened = await hubWith({ ghost: stdio([], {}, 'rein-no-such-mcp-server') });
    expect(states(opened, 'ghost')).toEqual(['starting', 'failed']);
    expect(opened.notes.find((note) => note.kind === 'mcp_server' && note.state === 'failed')).toMatchObject({
      problem: 'rein-no-such-mcp-server was not found on PATH',
    });
  });

  it("a tool's own error reaches the model as a tool error", async () => {
    const opened = await hubWith({ fs: stdio([FILESYSTEM, '.']) });
    const outcome = await opened.call('mcp__fs__read_text_file', { path: '/etc/hostname' });
    expect(outcome).toMatchObject({ ok: false, effect: { kind: 'mcp', server: 'fs', tool: 'read_text_file', outcome: 'error' } });
    expect(outcome.content).toMatch(/^Tool error: .*Access denied/);
  });

  it('a huge result is cut head+tail to the observation cap', async () => {
    const opened = await hubWith({ fs: stdio([FILESYSTEM, '.']) });
    fs.writeFileSync(path.join(opened.root, 'big.txt'), `START\n${'x'.repeat(3_000_000)}\nEND`);
    const outcome = await opened.call('mcp__fs__read_text_file', { path: path.join(opened.root, 'big.txt') });
    expect(outcome.ok).toBe(true);
    expect(outcome.content.length).toBeLessThanOrEqual(6_000);
    expect(outcome.content).toMatch(/^START\n/);
    expect(outcome.content).toMatch(/chars omitted/);
    expect(outcome.content).toMatch(/\nEND$/);
  });

  it('lines on stdout that are not JSON-RPC are logged and skipped, not fatal', async () => {
    const script = `echo 'Server v1 ready {'; echo '{"jsonrpc": 7}'; exec "${process.execPath}" "${EVERYTHING}" stdio`;
    const opened = await hubWith({ noisy: stdio(['-c', script], {}, 'bash') });
    expect(await opened.call('mcp__noisy__echo', { message: 'ok' })).toMatchObject({ ok: true, content: 'Echo: ok' });
    expect(opened.notes.find((note) => note.kind === 'mcp_server' && note.state === 'ready')).toMatchObject({ garbageLines: 2 });
    expect(stderrLog(opened.runDir, 'noisy')).toContain('ignored a line on stdout that is not JSON-RPC: Server v1 ready {');
  });

  it('closing the hub ends every server process', async () => {
    const opened = await openHub({ every: stdio([EVERYTHING, 'stdio']) });
    const pid = opened.hub.handles[0]!.pid!;
    expect(alive(pid)).toBe(true);
    await opened.hub.close();
    expect(alive(pid)).toBe(false);
    expect(states(opened, 'every').slice(-2)).toEqual(['closing', 'closed']);
  });
});

describe('closing while a server is still starting', () => {
  it('waits until its process is ended', async () => {
    const marker = `rein-mcp-slow-${process.pid}-${Date.now()}`;
    // The constructor starts the servers; openMcpHub would wait for the start, which this server never finishes.
    const hub = new McpHub({
      servers: { slow: stdio(['-e', 'setInterval(() => {}, 1000)', marker], { startupTimeoutSeconds: 20 }) },
      root: makeTempDir('rein-mcp-slow-'),
      policy: defaultPolicy,
      env: process.env,
      runDir: makeTempDir('rein-mcp-slow-run-'),
    });
    await waitUntil(() => processesWithArgument(marker).length > 0, 'the slow server to start');
    await hub.close();
    expect(processesWithArgument(marker)).toEqual([]);
  });
});
