import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { mcpServerSchema } from '../../../rules/mcp-servers.js';
import { waitUntil } from '../../helpers/wait.js';
import { EVERYTHING, openHub } from './mcp-fixtures.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The everything server over Streamable HTTP, behind a proxy on 127.0.0.1 that records each request's Authorization header. */
async function startHttpEverything(): Promise<{ url: string; authorizations: (string | undefined)[] }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanups.push(() => {
    child.kill('SIGKILL');
  });
  let log = '';
  child.stderr?.on('data', (chunk) => {
    log += String(chunk);
  });
  await waitUntil(() => log.includes('listening on port'), 'the everything server to listen');
  const authorizations: (string | undefined)[] = [];
  const proxy = http.createServer((request, response) => {
    authorizations.push(request.headers.authorization);
    const upstream = http.request({ host: '127.0.0.1', port, path: request.url, method: request.method, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
  cleanups.push(() => {
    proxy.closeAllConnections();
  });
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`, authorizations };
}

describe('a Streamable HTTP MCP server on 127.0.0.1', () => {
  it('is called with the bearer token from the environment, which never reaches the notes', async () => {
    const { url, authorizations } = await startHttpEverything();
    const token = 'tok-4f9a8c2e71d3b6a0';
    const server = mcpServerSchema.parse({ type: 'http', url, bearerTokenEnv: 'REIN_TEST_DOCS_TOKEN', headers: { 'X-Team': '${REIN_TEST_TEAM}' } });
    const opened = await openHub({ docs: server }, {}, { ...process.env, REIN_TEST_DOCS_TOKEN: token, REIN_TEST_TEAM: 'core' });
    cleanups.push(() => opened.hub.close() as Promise<void>);
    expect(await opened.call('mcp__docs__get-sum', { a: 2, b: 3 })).toMatchObject({ ok: true, content: expect.stringContaining('5') });
    expect(authorizations.length).toBeGreaterThan(1);
    expect(new Set(authorizations)).toEqual(new Set([`Bearer ${token}`]));
    const notes = JSON.stringify(opened.notes);
    expect(notes).toContain(`Streamable HTTP at ${new URL(url).origin}/mcp`);
    expect(notes).not.toContain(token);
    expect(notes).not.toContain('core');
  });

  it('a token variable that is not set fails the server with a message naming it, and nothing is sent', async () => {
    const { url, authorizations } = await startHttpEverything();
    const server = mcpServerSchema.parse({ type: 'http', url, bearerTokenEnv: 'REIN_TEST_UNSET_TOKEN' });
    const { REIN_TEST_UNSET_TOKEN: _unset, ...env } = process.env;
    const opened = await openHub({ docs: server }, {}, env);
    cleanups.push(() => opened.hub.close() as Promise<void>);
    expect(opened.notes.find((note) => note.kind === 'mcp_server' && note.state === 'failed')).toMatchObject({
      problem: "bearerTokenEnv: REIN_TEST_UNSET_TOKEN is not set in rein's environment",
    });
    expect(authorizations).toEqual([]);
  });
});
