import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openEndpoint } from '../../actors/model/openai-model.js';
import { checkReachable } from '../../cli/preflight.js';
import { ModelEndpointError } from '../../lib/errors.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { makeTempDir, writeFiles } from '../helpers/workspace.js';

// An endpoint that answers something else (a web server at the base URL, a captive proxy's login page), as a real
// local HTTP server: one clear line naming what came back, said by the pre-flight and by every reply, never retried.

const NGINX =
  '<!DOCTYPE html>\n<html>\n<head>\n<title>Welcome to nginx!</title>\n<style>body { width: 35em; }</style>\n</head>\n<body><h1>Welcome to nginx!</h1></body>\n</html>\n';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A real HTTP server on a free port; `requests` counts what reached it. */
async function serve(answer: (request: IncomingMessage, response: ServerResponse) => void): Promise<{ url: string; requests: string[] }> {
  const requests: string[] = [];
  server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    request.resume();
    answer(request, response);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/v1`, requests };
}

const page = (status: number, body: string) => (_request: IncomingMessage, response: ServerResponse) => {
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  response.end(body);
};

const endpoint = (url: string, retries = 4) =>
  openEndpoint({ baseURL: url, model: 'm', requestTimeoutMs: 5000, retry: { retries, baseDelayMs: 200, maxDelayMs: 2000 } });
const ask = (url: string, retries?: number) =>
  endpoint(url, retries).complete({ messages: [{ role: 'user', content: 'hi' }], maxTokens: 10 }, new AbortController().signal);
const SAID = 'the server answered text/html: <title>Welcome to nginx!</title>; is the base URL the model API?';

describe('an endpoint that answers a web page', () => {
  it('the pre-flight names the type and the page title', async () => {
    const { url } = await serve(page(200, NGINX));
    expect(await checkReachable(url)).toBe(`GET ${url}/models: ${SAID}`);
  });

  it('a reply that is a page fails at once with that line: one request, no retries', async () => {
    const { url, requests } = await serve(page(200, NGINX));
    const started = Date.now();
    const error = await ask(url).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelEndpointError);
    expect((error as Error).message).toBe(`model endpoint failed: ${SAID}`);
    expect(requests).toEqual(['POST /v1/chat/completions']);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("a proxy's login page for an error is said as the page it is, with its status", async () => {
    const { url } = await serve(page(403, '<html><head><title>Sign in to the network</title></head><body>…</body></html>'));
    const error = await ask(url, 0).catch((caught: unknown) => caught);
    expect((error as Error).message).toContain(
      'the server answered text/html (HTTP 403): <title>Sign in to the network</title>; is the base URL the model API?',
    );
    expect(await checkReachable(url)).toContain('(HTTP 403): <title>Sign in to the network</title>');
  });

  it('a page without a title is quoted by its first bytes; plain text that is not JSON too', async () => {
    const { url } = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('It works!\nThis is the default web page for this server.');
    });
    expect((await ask(url, 0).catch((caught: unknown) => caught as Error)).message).toBe(
      'model endpoint failed: the server answered text/plain: It works! This is the default web page for this server.; is the base URL the model API?',
    );
    expect(await checkReachable(url)).toContain('the server answered text/plain: It works!');
  });

  it('a page labelled application/json (read whole, not streamed) is still said as the page it is, once', async () => {
    const { url, requests } = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(NGINX);
    });
    const error = await ask(url).catch((caught: unknown) => caught as Error);
    expect(error.message).toBe('model endpoint failed: the server answered application/json: <title>Welcome to nginx!</title>; is the base URL the model API?');
    expect(requests).toEqual(['POST /v1/chat/completions']);
  });

  it('JSON a gateway labels text/plain, and a /models that is missing (a JSON 404), still pass', async () => {
    const { url } = await serve((request, response) => {
      if (request.url?.endsWith('/models')) {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end('{"error": {"message": "not found"}}');
        return;
      }
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          created: 0,
          model: 'm',
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'hello' } }],
        }),
      );
    });
    expect(await checkReachable(url)).toBeNull();
    expect((await ask(url, 0)).message.content).toBe('hello');
  });

  it('`rein run` against it stops before the run starts with that one line, exit code 3, and makes no run directory', async () => {
    const { url } = await serve(page(200, NGINX));
    const repo = makeTempDir('rein-foreign-');
    writeFiles(repo, { 'a.txt': 'x\n' });
    const result = await runCli(['run', repo, 'Fix it.', '--test-cmd', 'true', '--model', 'm', '--base-url', url], { env: cleanEnv() });
    expect(result.code).toBe(3);
    expect(result.stderr.trim()).toBe(`rein: GET ${url}/models: ${SAID}`);
    expect(existsSync(join(repo, '.rein'))).toBe(false);
  });
});
