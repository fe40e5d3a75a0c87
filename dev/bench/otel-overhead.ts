import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startLiveExport } from 'rein-telemetry/live-export.js';
import { resolveOtlpSettings } from 'rein-telemetry/otlp-settings.js';
import { measureOverhead } from './overhead.js';

interface OtelOverheadRow {
  setting: 'export off' | 'collector on loopback' | 'collector down (closed port)';
  msPerStep: number;
  /** Spans the collector received (loopback only). */
  spans: number;
  /** The run's end waiting for the last spans (bounded by the flush timeout). */
  endWaitMs: number;
}

/**
 * The harness's cost per step with the live OpenTelemetry export off, on
 * (a collector on loopback that accepts everything) and on with the
 * collector down, measured in rounds that alternate the three settings so
 * machine load drifts over all of them alike; medians are reported.
 */
export async function measureOtelOverhead(steps: number, rounds = 3): Promise<OtelOverheadRow[]> {
  const collector = await startCountingCollector();
  const down = await closedPort();
  const settings = ['export off', 'collector on loopback', 'collector down (closed port)'] as const;
  const samples = new Map<OtelOverheadRow['setting'], Array<{ ms: number; spans: number; wait: number }>>(settings.map((setting) => [setting, []]));
  try {
    for (let round = 0; round < rounds; round++) {
      for (const setting of settings) {
        const url = setting === 'collector on loopback' ? collector.url : setting === 'collector down (closed port)' ? `http://127.0.0.1:${down}` : undefined;
        const live = url ? startLiveExport((await resolveOtlpSettings({ url, env: {} }))!, { facts: {}, warn: () => undefined }) : null;
        const before = collector.spans;
        const result = await measureOverhead(steps, live ? { onTraceLine: live.line } : {});
        const waitStart = performance.now();
        await live?.finish();
        samples.get(setting)!.push({ ms: result.msPerStep, spans: collector.spans - before, wait: live ? performance.now() - waitStart : 0 });
      }
    }
  } finally {
    await new Promise((resolve) => collector.server.close(resolve));
  }
  return settings.map((setting) => {
    const rows = samples.get(setting)!;
    return {
      setting,
      msPerStep: median(rows.map((row) => row.ms)),
      spans: median(rows.map((row) => row.spans)),
      endWaitMs: median(rows.map((row) => row.wait)),
    };
  });
}

/** A collector that accepts OTLP/HTTP JSON and only counts the spans. */
async function startCountingCollector(): Promise<{ server: Server; url: string; spans: number }> {
  const state = { spans: 0 };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: unknown[] }> }> };
      for (const resource of body.resourceSpans ?? []) for (const scope of resource.scopeSpans ?? []) state.spans += scope.spans?.length ?? 0;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    server,
    url,
    get spans() {
      return state.spans;
    },
  };
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
