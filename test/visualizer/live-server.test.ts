import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scriptedModelSource } from '../../actors/model/model-source.js';
import { DEMO_TASK, DEMO_TEST_CMD, demoScript } from '../../cli/demo/demo-model.js';
import { defaultRules } from '../../rules/schema.js';
import { startRun } from '../../run/start-run.js';
import { createLiveFeed } from '../../visualizer/server/live-feed.js';
import type { LiveMessage } from '../../visualizer/server/page-data.js';
import { startVizServer, type VizServer } from '../../visualizer/server/viz-server.js';
import { demoRepoFiles } from '../helpers/demo-files.js';
import { makeTempDir, writeFiles } from '../helpers/workspace.js';
import { readLines } from './browser.js';

interface Reply {
  status: number;
  body: string;
}

/** A GET with a chosen Host header; for `/events`, reads messages until `until` says stop. */
function get(
  server: VizServer,
  path: string,
  options: { host?: string; lastEventId?: number; session?: string; until?: (messages: LiveMessage[]) => boolean } = {},
): Promise<Reply & { messages: LiveMessage[] }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host: options.host ?? `127.0.0.1:${server.port}` };
    if (options.session) headers['x-rein-session'] = options.session;
    if (options.lastEventId !== undefined) headers['last-event-id'] = String(options.lastEventId);
    const req = request({ host: '127.0.0.1', port: server.port, path, headers }, (response) => {
      let body = '';
      const messages: LiveMessage[] = [];
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
        if (!options.until) return;
        messages.splice(
          0,
          messages.length,
          ...body
            .split('\n')
            .filter((line) => line.startsWith('data: '))
            .map((line) => JSON.parse(line.slice(6)) as LiveMessage),
        );
        if (options.until(messages)) {
          req.destroy();
          resolve({ status: response.statusCode ?? 0, body, messages });
        }
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, messages }));
    });
    req.on('error', (error) => {
      if (!req.destroyed) reject(error);
    });
    req.end();
  });
}

/** What the page does with the printed address: trades its one-time key for the session. */
async function openSession(server: VizServer): Promise<string> {
  const key = new URL(server.url).hash.replace(/^#key=/, '');
  const response = await fetch(`http://127.0.0.1:${server.port}/session`, { method: 'POST', body: JSON.stringify({ key }) });
  expect(response.status).toBe(200);
  return ((await response.json()) as { session: string }).session;
}

// The end line is written from the final state's entry action; the harness's last snapshot follows it.
const ended = (messages: LiveMessage[]) =>
  messages.some((message) => message.type === 'trace' && message.line.kind === 'end') &&
  messages.some((message) => message.type === 'inspect' && message.event.kind === 'snapshot' && message.event.root && message.event.status === 'done');

describe('the live feed and its server', () => {
  let server: VizServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('streams a real run: every trace line as written, and XState inspection events boiled down to state, events and actors', async () => {
    const workspace = makeTempDir('rein-viz-live-');
    writeFiles(workspace, demoRepoFiles());
    const feed = createLiveFeed();
    server = await startVizServer({ port: 0, page: () => '<!doctype html><title>live</title>', feed });
    const handle = await startRun({
      workspace,
      task: DEMO_TASK,
      testCmd: DEMO_TEST_CMD,
      rules: defaultRules(),
      model: scriptedModelSource('demo-scripted', demoScript),
      runDir: join(workspace, '.rein', 'run'),
      onTrace: ({ i: _index, t: _time, kind, ...data }) => feed.onTrace(kind, data),
      inspect: feed.inspect,
    });
    const session = await openSession(server);
    const early = get(server, '/events', { session, until: ended });
    await handle.done;
    const { messages, status } = await early;
    expect(status).toBe(200);
    const written = readLines(handle.tracePath);
    const streamed = messages.filter((message) => message.type === 'trace').map((message) => (message as { line: Record<string, unknown> }).line);
    expect(streamed.map(({ t: _t, ...line }) => line)).toEqual(written.map(({ t: _t, ...line }) => line));
    const inspected = messages.flatMap((message) => (message.type === 'inspect' ? [message.event] : []));
    const rootStates = inspected.filter((event) => event.kind === 'snapshot' && event.root).map((event) => (event as { state?: string }).state);
    expect(rootStates[0]).toBe('plan.compact');
    expect(rootStates.at(-1)).toBe('done');
    expect(inspected.find((event) => event.kind === 'snapshot' && event.root && event.status === 'done')).toBeDefined();
    expect(inspected.some((event) => event.kind === 'actor' && event.name === 'model')).toBe(true);
    expect(inspected.some((event) => event.kind === 'event' && event.type === 'xstate.done.actor.model' && event.source === 'model')).toBe(true);
    // Nothing of the context travels: the biggest inspection message is small.
    expect(Math.max(...inspected.map((event) => JSON.stringify(event).length))).toBeLessThan(300);
    expect(messages.map((message) => message.seq)).toEqual(messages.map((_, index) => index + 1));

    // A page that connects late gets everything; one that reconnects gets what it missed.
    const late = await get(server, '/events', { session, until: ended });
    expect(late.messages.length).toBe(messages.filter((message) => message.seq <= late.messages.at(-1)!.seq).length);
    const resumed = await get(server, '/events', { session, lastEventId: 10, until: ended });
    expect(resumed.messages[0]!.seq).toBe(11);
  });

  it('serves only 127.0.0.1 under its own host names, and redacts secrets from live lines', async () => {
    const feed = createLiveFeed({ secrets: ['sk-live-0123456789abcdef'] });
    server = await startVizServer({ port: 0, page: () => '<!doctype html><p>page</p>', feed });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#key=[\w-]{32}$/);
    const session = await openSession(server);
    expect((await get(server, '/page', { session })).body).toContain('<p>page</p>');
    expect((await get(server, '/page', { session, host: `localhost:${server.port}` })).status).toBe(200);
    expect((await get(server, '/', { host: 'attacker.example' })).status).toBe(403);
    expect((await get(server, '/nope', { session })).status).toBe(404);
    feed.onTrace('tool', { result: 'echo sk-live-0123456789abcdef' });
    const { messages } = await get(server, '/events', { session, until: (received) => received.length > 0 });
    expect(JSON.stringify(messages[0])).not.toContain('sk-live');
    expect(messages[0]).toMatchObject({ type: 'trace', line: { kind: 'tool', i: 0, result: 'echo [redacted]' } });
  });
});
