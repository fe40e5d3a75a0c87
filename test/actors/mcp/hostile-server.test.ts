import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpHub } from '../../../actors/mcp/hub.js';
import { waitUntil } from '../../helpers/wait.js';
import { makeTempDir } from '../../helpers/workspace.js';
import { type OpenedHub, openHub, stderrLog, stdio } from './mcp-fixtures.js';

/**
 * The MCP client against a server that breaks the protocol on purpose (fixtures/hostile-server.mjs, a real
 * process started by each test), judged by the specification's text (modelcontextprotocol.io, 2025-11-25:
 * lifecycle, cancellation, pagination, tools; JSON-RPC 2.0 on ids).
 */

const HOSTILE = path.join(import.meta.dirname, 'fixtures/hostile-server.mjs');
const open: McpHub[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((hub) => hub.close()));
});

async function hostile(behaviours: string[], extra: Record<string, unknown> = {}): Promise<OpenedHub & { received: () => Record<string, unknown>[] }> {
  const log = path.join(makeTempDir('rein-mcp-hostile-'), 'received.jsonl');
  const opened = await openHub({ bad: stdio([HOSTILE, behaviours.join(','), log], { sandbox: false, ...extra }) });
  open.push(opened.hub);
  const received = () =>
    fs.existsSync(log)
      ? fs
          .readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Record<string, unknown>)
      : [];
  return { ...opened, received };
}

const cancellations = (messages: Record<string, unknown>[]) => messages.filter((message) => message.method === 'notifications/cancelled');

describe('an MCP server that breaks the protocol (a real process)', () => {
  it('a server that closes its stdout ends the connection at once: the pending call fails in well under its timeout and the server is stopped', async () => {
    const opened = await hostile(['close-stdout'], { callTimeoutSeconds: 60, maxRestarts: 0 });
    const pid = opened.hub.handles[0]!.pid!;
    const started = Date.now();
    const outcome = await opened.call('mcp__bad__echo', { text: 'x' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(outcome.ok).toBe(false);
    expect(outcome.content).toMatch(/^Tool error: bad crashed during the call/);
    // The process kept running after closing its stdout; rein ended it.
    await waitUntil(() => !alive(pid), 'the server to be stopped', 5_000);
    // rein notes why in the server's stderr log as it sees the exit, which may come a moment after the process is gone.
    await waitUntil(() => stderrLog(opened.runDir, 'bad').includes('the server closed its stdout'), 'the note in the stderr log', 5_000);
  });

  it('the same in the run’s sandbox (bubblewrap between rein and the server)', async () => {
    // No message log here: the sandbox's /tmp is its own.
    const opened = await openHub({ bad: stdio([HOSTILE, 'close-stdout'], { callTimeoutSeconds: 60, maxRestarts: 0 }) }, { sandbox: 'bwrap' });
    open.push(opened.hub);
    expect(opened.notes).toContainEqual(expect.objectContaining({ state: 'ready', where: expect.stringContaining('bubblewrap') }));
    expect(opened.tools.map((tool) => tool.name)).toContain('mcp__bad__echo');
    const started = Date.now();
    expect((await opened.call('mcp__bad__echo', { text: 'x' })).content).toMatch(/crashed during the call/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('answered requests are never cancelled, initialize included, not even when the run ends or the startup deadline passes', async () => {
    const opened = await hostile([], { startupTimeoutSeconds: 0.5 });
    // Past the startup deadline: the handshake's requests were answered long before it.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(await opened.call('mcp__bad__echo', { text: 'hi' })).toMatchObject({ ok: true, content: 'echo: hi' });
    const controller = new AbortController();
    expect(await opened.call('mcp__bad__echo', { text: 'again' }, controller.signal)).toMatchObject({ ok: true });
    // The run's signal aborting after the answer must not cancel what was answered.
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 200));
    await opened.hub.close();
    const received = opened.received();
    expect(received.map((message) => message.method)).toEqual(expect.arrayContaining(['initialize', 'tools/list', 'tools/call']));
    expect(cancellations(received)).toEqual([]);
  });

  it('one invalid tool definition drops that tool with a warning; the good tools are offered', async () => {
    const opened = await hostile(['bad-tool']);
    expect(opened.tools.map((tool) => tool.name).sort()).toEqual(['mcp__bad__also_good', 'mcp__bad__echo']);
    const refused = opened.notes.find((note) => note.kind === 'mcp_tools' && note.change === 'refused');
    expect(refused).toMatchObject({
      tools: expect.arrayContaining([
        expect.objectContaining({ server: 'bad', tool: 'broken', reason: expect.stringMatching(/inputSchema\.type/) }),
        expect.objectContaining({ server: 'bad', tool: '(a tool without a name)' }),
      ]),
    });
  });

  it('a response whose id is the string "N" is not the answer to request N: it is dropped and the real answer is taken', async () => {
    const opened = await hostile(['string-id']);
    expect(await opened.call('mcp__bad__echo', { text: 'real' })).toMatchObject({ ok: true, content: 'echo: real' });
    expect(stderrLog(opened.runDir, 'bad')).toMatch(/dropped a response whose id "\d+" answers no request/);
  });

  it('paging stops at a cursor the server already sent, keeping what it listed; an empty-string cursor is a cursor', async () => {
    const looping = await hostile(['repeat-cursor']);
    expect(looping.tools.map((tool) => tool.name)).toEqual(['mcp__bad__page_1', 'mcp__bad__page_2']);
    const refused = looping.notes.find((note) => note.kind === 'mcp_tools' && note.change === 'refused');
    expect(JSON.stringify(refused)).toContain('sent the cursor \\"again\\" a second time');
    const empty = await hostile(['empty-cursor']);
    expect(empty.tools.map((tool) => tool.name)).toEqual(['mcp__bad__first', 'mcp__bad__second']);
  });
});

describe('prose arguments the user names are not read as commands (proseArguments)', () => {
  it('the built-in deny list skips the named argument of the named tool; another argument, or the user’s own patterns, still refuse', async () => {
    const prose = 'the deploy step needs sudo';
    const plain = await hostile([]);
    expect(await plain.call('mcp__bad__echo', { text: prose })).toMatchObject({
      ok: false,
      content: expect.stringMatching(/Blocked by policy: privilege escalation/),
    });
    const named = await hostile([], { proseArguments: { 'ech*': ['text'] } });
    expect(await named.call('mcp__bad__echo', { text: prose })).toMatchObject({ ok: true, content: `echo: ${prose}` });
    const other = await hostile([], { proseArguments: { echo: ['title'] } });
    expect((await other.call('mcp__bad__echo', { text: prose })).ok).toBe(false);
    const log = path.join(makeTempDir('rein-mcp-hostile-'), 'received.jsonl');
    const own = await openHub({ bad: stdio([HOSTILE, '', log], { sandbox: false, proseArguments: { echo: ['text'] } }) }, { deny: ['needs sudo'] });
    open.push(own.hub);
    expect(await own.call('mcp__bad__echo', { text: prose })).toMatchObject({ ok: false, content: expect.stringMatching(/deny pattern/) });
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
