import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * A hostile endpoint, for real: a local HTTP server whose chat completions
 * answer with a body of `size` bytes, generated as it is sent (never held in
 * memory) and stopped when the client hangs up. `/v1/models` answers, so the
 * start-up check passes.
 */
async function floodingServer(answer: (response: ServerResponse, sent: { bytes: number }) => void) {
  const sent = { bytes: 0 };
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (request.url?.endsWith('/models')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"object":"list","data":[{"id":"m"}]}');
        return;
      }
      answer(response, sent);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    url,
    sent,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Writes `total` bytes of `piece` repeated, with backpressure, until done or the client is gone. */
function pump(response: ServerResponse, sent: { bytes: number }, total: number, piece: Buffer, end = ''): void {
  let gone = false;
  response.on('close', () => {
    gone = true;
  });
  const more = () => {
    while (!gone && sent.bytes < total) {
      sent.bytes += piece.length;
      if (!response.write(piece)) return void response.once('drain', more);
    }
    if (!gone) response.end(end);
  };
  more();
}

function repo(): string {
  const dir = makeTempDir('rein-flood-');
  writeFileSync(join(dir, 'a.js'), 'export const a = 1;\n');
  return dir;
}

/** A preload that writes the rein process's peak resident memory (KiB) to a file when it exits. */
function rssProbe(): { nodeOptions: string; peakMiB: () => number } {
  const dir = makeTempDir('rein-rss-');
  const out = join(dir, 'peak-kib');
  const preload = join(dir, 'peak-rss.cjs');
  writeFileSync(
    preload,
    `if (process.argv[1] && process.argv[1].endsWith('rein.js')) process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, String(process.resourceUsage().maxRSS)));\n`,
  );
  return { nodeOptions: `--require ${preload}`, peakMiB: () => Number(readFileSync(out, 'utf8')) / 1024 };
}

const GB3 = 3 * 1024 ** 3;
const size = (path: string) => (existsSync(path) ? statSync(path).size : 0);

describe('endpoint bodies are bounded (a flood from the endpoint costs neither memory nor disk)', () => {
  let server: Awaited<ReturnType<typeof floodingServer>> | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function runAgainst(url: string, extraEnv: NodeJS.ProcessEnv = {}) {
    const workspace = repo();
    const runDir = join(makeTempDir('rein-flood-run-'), 'run');
    const probe = rssProbe();
    const result = await runCli(['run', workspace, 'task', '--test-cmd', 'node a.js', '--model', 'm', '--run-dir', runDir], {
      env: cleanEnv({ OPENAI_BASE_URL: url, NODE_OPTIONS: probe.nodeOptions, ...extraEnv }),
      timeoutMs: 120_000,
    });
    return { result, runDir, peakMiB: probe.peakMiB() };
  }

  it('a 3 GB 200 body: rein reads 16 MiB of it, stays small in memory, and says the reply was cut and how big it was', async () => {
    server = await floodingServer((response, sent) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      pump(response, sent, GB3, Buffer.alloc(1 << 16, ' '));
    });
    const { result, runDir, peakMiB } = await runAgainst(server.url);
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/passed model\.maxResponseBytes \(16777216 bytes\) and was cut there/);
    // The server wrote what the sockets buffered past the cut, no more: the rest of the 3 GB was never asked for.
    expect(server.sent.bytes).toBeLessThan(64 * 1024 ** 2);
    // The figure the report quotes: rein's peak RSS against a 3 GB body (the body alone would be 3,072 MiB).
    console.log(`peak RSS against a 3 GB body: ${peakMiB.toFixed(0)} MiB; the server sent ${(server.sent.bytes / 1024 ** 2).toFixed(1)} MiB`);
    expect(peakMiB).toBeLessThan(400);
    expect(result.stderr.length).toBeLessThan(8_000);
    expect(size(join(runDir, 'trace.jsonl'))).toBeLessThan(200_000);
    expect(size(join(runDir, 'state.json'))).toBeLessThan(200_000);
  }, 150_000);

  it('a 3 GB stream that never ends a line: cut the same way, by bytes, at the limit the rules set', async () => {
    server = await floodingServer((response, sent) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {"choices":[{"index":0,"delta":{"content":"');
      pump(response, sent, GB3, Buffer.alloc(1 << 16, 'x'));
    });
    const config = join(makeTempDir('rein-flood-config-'), 'rein.config.json');
    // A smaller limit keeps the test quick: the SDK's line reader rescans a line that never ends as it grows.
    writeFileSync(config, JSON.stringify({ model: { stream: true, maxResponseBytes: 4 * 1024 ** 2 } }));
    const workspace = repo();
    const runDir = join(makeTempDir('rein-flood-run-'), 'run');
    const probe = rssProbe();
    const result = await runCli(['run', workspace, 'task', '--test-cmd', 'node a.js', '--model', 'm', '--run-dir', runDir, '--config', config], {
      env: cleanEnv({ OPENAI_BASE_URL: server.url, NODE_OPTIONS: probe.nodeOptions }),
      timeoutMs: 120_000,
    });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/text\/event-stream\) passed model\.maxResponseBytes \(4194304 bytes\)/);
    expect(server.sent.bytes).toBeLessThan(32 * 1024 ** 2);
    expect(probe.peakMiB()).toBeLessThan(400);
  }, 150_000);

  it('a 10 MB error message: stderr, the trace and the state file get a cut of it that says how big it was', async () => {
    const message = 'E'.repeat(10 * 1024 ** 2);
    server = await floodingServer((response) => {
      const body = JSON.stringify({ error: { message } });
      response.writeHead(500, { 'content-type': 'application/json', 'retry-after': '0', 'content-length': String(Buffer.byteLength(body)) });
      response.end(body);
    });
    const { result, runDir } = await runAgainst(server.url);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/InternalServerError 500: 500 \[error body of 1048578\d bytes \(content-length\), cut after the first 65536\] EEEE/);
    expect(result.stderr.length).toBeLessThan(20_000);
    // Five attempts, four retry lines and the end: each line holds a cut message, not 10 MB.
    expect(size(join(runDir, 'trace.jsonl'))).toBeLessThan(100_000);
    expect(size(join(runDir, 'state.json'))).toBeLessThan(100_000);
    expect(readFileSync(join(runDir, 'trace.jsonl'), 'utf8').match(/"kind":"retry"/g)).toHaveLength(4);
  }, 150_000);
});
