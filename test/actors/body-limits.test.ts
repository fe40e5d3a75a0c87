import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readCapped } from '../../actors/model/body-limits.js';
import { errorBody } from '../../actors/model/error-body.js';
import { openEndpoint } from '../../actors/model/openai-model.js';
import { ModelEndpointError } from '../../lib/errors.js';

const bodyOf = (text: string) => new Response(text).body;

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

describe('reading at most so many bytes of a body', () => {
  it('a body of exactly the limit is whole; one byte more is cut', async () => {
    expect(await readCapped(bodyOf('abcd'), 4)).toEqual({ text: 'abcd', bytes: 4, cut: false });
    expect(await readCapped(bodyOf('abcde'), 4)).toEqual({ text: 'abcd', bytes: 4, cut: true });
    expect(await readCapped(null, 4)).toEqual({ text: '', bytes: 0, cut: false });
  });

  it('an error message longer than a person reads is cut, saying how long it was; a short one is kept byte for byte', () => {
    const short = '{"error":{"message":"model not found","code":404}}';
    expect(errorBody(short)).toBe(short);
    const long = JSON.parse(errorBody(JSON.stringify({ error: { message: 'x'.repeat(50_000) } }))).error.message as string;
    expect(long.length).toBeLessThan(2_100);
    expect(long).toMatch(/\[error text cut: it was 50000 characters\]$/);
  });
});

describe('a JSON reply read whole', () => {
  const reply = JSON.stringify({
    id: 'x',
    object: 'chat.completion',
    created: 0,
    model: 'm',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'hello' } }],
  });
  let asked = 0;
  const answering = async (chunks: string[]) => {
    server = createServer((request, response) => {
      asked++;
      request.resume();
      // No content-length: sent chunked, in pieces, as a server that streams its JSON out does.
      response.writeHead(200, { 'content-type': 'application/json' });
      for (const chunk of chunks) response.write(chunk);
      response.end();
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return (maxResponseBytes: number) =>
      openEndpoint({
        baseURL: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/v1`,
        model: 'm',
        requestTimeoutMs: 10_000,
        maxResponseBytes,
        retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 1 },
      }).complete({ messages: [{ role: 'user', content: 'hi' }], maxTokens: 5 }, new AbortController().signal);
  };

  it('in pieces without a declared length, it is joined whole; one byte past the limit fails, quoting its start, not retried', async () => {
    const pieces = [reply.slice(0, 10), reply.slice(10, 40), reply.slice(40)];
    const complete = await answering(pieces);
    expect((await complete(reply.length)).message.content).toBe('hello');
    const error = await complete(reply.length - 1).catch((caught: unknown) => caught as Error);
    expect(error).toBeInstanceOf(ModelEndpointError);
    expect(error.message).toContain(`passed model.maxResponseBytes (${reply.length - 1} bytes) and was cut there, unread beyond it; it began: `);
    expect(error.message).toContain('{\\"id\\":\\"x\\"');
    expect(asked).toBe(2);
  });
});

describe('a declared length over the limit', () => {
  it('is refused before a byte of the body is read, and the error says how big it was', async () => {
    let sent = 0;
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(3 * 1024 ** 3) });
        const chunk = Buffer.alloc(1 << 16, ' ');
        const more = () => {
          while (!response.destroyed && sent < 3 * 1024 ** 3) {
            sent += chunk.length;
            if (!response.write(chunk)) return void response.once('drain', more);
          }
        };
        more();
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const endpoint = openEndpoint({
      baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      model: 'm',
      requestTimeoutMs: 10_000,
      retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const error = await endpoint
      .complete({ messages: [{ role: 'user', content: 'hi' }], maxTokens: 5 }, new AbortController().signal)
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(ModelEndpointError);
    expect(error.message).toContain('is 3221225472 bytes (content-length), more than model.maxResponseBytes (16777216); none of it was read');
    // Not retried: one request, and the server got to send only what the sockets buffered.
    expect(sent).toBeLessThan(16 * 1024 ** 2);
  });
});
