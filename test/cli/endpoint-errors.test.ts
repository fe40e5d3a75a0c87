import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openEndpoint } from '../../actors/model/openai-model.js';
import { ModelEndpointError } from '../../lib/errors.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * A server that behaves as vLLM does when set up wrong: only `/v1/...` exists
 * (anything else is FastAPI's `{"detail":"Not Found"}` 404), and a model it
 * does not serve is a 404 naming the model.
 */
async function vllmLike(models: string[]): Promise<{ root: string; close(): Promise<unknown> }> {
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const json = (status: number, value: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(value));
      };
      if (request.method === 'GET' && request.url === '/v1/models') return json(200, { object: 'list', data: models.map((id) => ({ id, object: 'model' })) });
      if (request.method !== 'POST' || request.url !== '/v1/chat/completions') return json(404, { detail: 'Not Found' });
      const { model } = JSON.parse(body) as { model: string };
      if (!models.includes(model))
        return json(404, { object: 'error', message: `The model \`${model}\` does not exist.`, type: 'NotFoundError', param: null, code: 404 });
      return json(200, { choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'hello' } }] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { root: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

function repo(): string {
  const dir = makeTempDir('rein-endpoint-errors-');
  writeFileSync(join(dir, 'a.js'), 'export const a = 1;\n');
  return dir;
}

const runAgainst = (baseURL: string, model: string) =>
  runCli(['run', repo(), 'task', '--test-cmd', 'node a.js', '--model', model], { env: cleanEnv({ OPENAI_BASE_URL: baseURL }) });

describe('endpoint errors say what to check', () => {
  let server: Awaited<ReturnType<typeof vllmLike>> | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('a base URL without /v1: the 404 says the path must end where the OpenAI API starts, and suggests the URL with /v1', async () => {
    server = await vllmLike(['Qwen/Qwen2.5-Coder-7B-Instruct']);
    const result = await runAgainst(server.root, 'Qwen/Qwen2.5-Coder-7B-Instruct');
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      `nothing answers POST ${server.root}/chat/completions: check that the base URL ends where the OpenAI API starts, usually /v1 (try ${server.root}/v1)`,
    );
  });

  it('a base URL that already names /chat/completions: told that rein adds it', async () => {
    server = await vllmLike(['m']);
    const result = await runAgainst(`${server.root}/v1/chat/completions`, 'm');
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(`(rein adds /chat/completions itself: try ${server.root}/v1)`);
  });

  it('a model name the server does not serve: the models its /models lists, and the nearest one', async () => {
    server = await vllmLike(['Qwen/Qwen2.5-Coder-7B-Instruct', 'meta-llama/Llama-3.1-8B-Instruct']);
    const result = await runAgainst(`${server.root}/v1`, 'Qwen/Qwen2.5-Coder-7B-Instruc');
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('The model `Qwen/Qwen2.5-Coder-7B-Instruc` does not exist.');
    expect(result.stderr).toContain(
      `check the model name (--model or REIN_MODEL, now "Qwen/Qwen2.5-Coder-7B-Instruc"): the server at ${server.root}/v1 lists Qwen/Qwen2.5-Coder-7B-Instruct, meta-llama/Llama-3.1-8B-Instruct (did you mean "Qwen/Qwen2.5-Coder-7B-Instruct"?)`,
    );
  });

  it('an endpoint that stops listening mid-run (no start-up check then): the error names the base URL to check', async () => {
    server = await vllmLike(['m']);
    const baseURL = `${server.root}/v1`;
    await server.close();
    server = undefined;
    const endpoint = openEndpoint({ baseURL, model: 'm', requestTimeoutMs: 2000, retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    const error = await endpoint
      .complete({ messages: [{ role: 'user', content: 'hi' }], maxTokens: 5 }, new AbortController().signal)
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(ModelEndpointError);
    expect(error.message).toContain(
      `check the base URL (--base-url or OPENAI_BASE_URL, now ${baseURL}) and that a server is running and listening there (ECONNREFUSED)`,
    );
  });

  it('a server whose /models does not answer: told to check the name against what the server serves', async () => {
    const bare = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(request.method === 'GET' ? '{"detail":"Not Found"}' : '{"error":{"message":"model \\"qwen\\" not found, try pulling it first"}}');
      });
    });
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    const baseURL = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/v1`;
    try {
      const result = await runAgainst(baseURL, 'qwen');
      expect(result.code).toBe(3);
      expect(result.stderr).toContain(
        `check the model name (--model or REIN_MODEL, now "qwen") against the models the server serves (its ${baseURL}/models did not list them)`,
      );
    } finally {
      await new Promise((resolve) => bare.close(resolve));
    }
  });
});
