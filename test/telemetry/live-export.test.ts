import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_TASK } from '../../cli/demo/demo-model.js';
import type { TraceRecord as TraceLine } from '../../lib/trace/trace-events.js';
import { exportRunAsAtif } from '../../telemetry/atif/export-run.js';
import { FLUSH_TIMEOUT_MS } from '../../telemetry/live-export.js';
import { type CliResult, cleanEnv, repoRoot, runCli } from '../helpers/cli.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

const CONTENT_KEYS = [
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'gen_ai.system_instructions',
  'gen_ai.tool.call.arguments',
  'gen_ai.tool.call.result',
  'rein.command',
  'rein.tool.path',
];

function summaryOf(result: CliResult): { status: string; steps: number; trace: string; runDir: string } {
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!);
}

function traceOf(path: string): TraceLine[] {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as TraceLine);
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function timed(run: () => Promise<CliResult>): Promise<CliResult & { ms: number }> {
  const started = Date.now();
  const result = await run();
  return { ...result, ms: Date.now() - started };
}

describe('rein demo --otel: live OpenTelemetry export to a real OTLP/HTTP receiver', () => {
  const receivers: OtlpReceiver[] = [];
  const receiver = async (mode: 'ok' | 'hang' = 'ok') => {
    const started = await startOtlpReceiver(mode);
    receivers.push(started);
    return started;
  };
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((entry) => entry.close()));
  });

  it("sends the run as a span tree: invoke_agent rein over chat and execute_tool spans, usage equal to the trace's, no contents", async () => {
    const collector = await receiver();
    const result = await runCli(['demo', '--otel', collector.url, '--json'], { env: cleanEnv() });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`rein: OpenTelemetry: spans go to ${collector.url}/v1/traces (contents left out)`);
    expect(result.stderr).not.toMatch(/OpenTelemetry: (could not|.*did not)/);
    const summary = summaryOf(result);
    const trace = traceOf(summary.trace);
    const spans = collector.spans;
    expect(
      collector.requests.every((request) => ['/v1/traces', '/v1/metrics'].includes(request.path) && request.headers['content-type'] === 'application/json'),
    ).toBe(true);

    const roots = spans.filter((span) => span.parentSpanId === '');
    expect(roots.map((span) => span.name)).toEqual(['invoke_agent rein']);
    const root = roots[0]!;
    expect(spans.filter((span) => span !== root).every((span) => span.parentSpanId === root.spanId && span.traceId === root.traceId)).toBe(true);
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'rein',
      // The run's ATIF session id, so its spans and its trajectory can be matched; and which rein ran it.
      'gen_ai.conversation.id': exportRunAsAtif(summary.runDir).session_id,
      'gen_ai.agent.version': JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version,
      'gen_ai.provider.name': 'rein.scripted',
      'gen_ai.request.model': 'demo-scripted',
      'rein.run.status': 'done',
      'rein.run.steps': summary.steps,
    });
    const end = trace.find((line) => line.kind === 'end')!;
    const usage = end.usage as { promptTokens: number; completionTokens: number; cachedTokens: number };
    expect([
      root.attributes['gen_ai.usage.input_tokens'],
      root.attributes['gen_ai.usage.output_tokens'],
      root.attributes['gen_ai.usage.cache_read.input_tokens'],
    ]).toEqual([usage.promptTokens, usage.completionTokens, usage.cachedTokens]);

    const models = trace.filter((line) => line.kind === 'model');
    const chats = spans
      .filter((span) => span.name === 'chat demo-scripted')
      .sort((a, b) => Number(a.attributes['rein.step']) - Number(b.attributes['rein.step']));
    expect(
      chats.map((span) => [
        span.attributes['gen_ai.usage.input_tokens'],
        span.attributes['gen_ai.usage.output_tokens'],
        span.attributes['gen_ai.usage.cache_read.input_tokens'],
      ]),
    ).toEqual(
      models.map((line) => {
        const used = line.usage as typeof usage;
        return [used.promptTokens, used.completionTokens, used.cachedTokens];
      }),
    );
    expect(
      chats.every(
        (span) => span.attributes['gen_ai.operation.name'] === 'chat' && span.attributes['gen_ai.provider.name'] === 'rein.scripted' && span.kind === 1,
      ),
    ).toBe(true);

    const tools = spans.filter((span) => span.name.startsWith('execute_tool '));
    const calls = models.flatMap((line) => (line.tool_calls as Array<{ id: string }>).map((call) => call.id)).sort();
    expect(tools.map((span) => span.attributes['gen_ai.tool.call.id']).sort()).toEqual(calls);
    expect(
      tools.every((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool' && span.name === `execute_tool ${span.attributes['gen_ai.tool.name']}`),
    ).toBe(true);
    // The gate's refusal is on its span and, with the phase changes, on the run's timeline.
    expect(tools.find((span) => span.attributes['rein.gate.allowed'] === false)).toMatchObject({
      status: { code: 2 },
      attributes: { 'error.type': 'refused' },
    });
    expect(root.events.filter((event) => event.name === 'rein.phase_change').map((event) => event.attributes['rein.to'])).toEqual([
      'plan',
      'build',
      'verify',
      'fix',
      'verify',
      'done',
    ]);

    expect(spans.flatMap((span) => Object.keys(span.attributes)).filter((key) => CONTENT_KEYS.includes(key))).toEqual([]);
    const sent = collector.bodies.join('\n');
    expect(sent).not.toContain(DEMO_TASK);
    expect(sent).not.toContain('stats.js');
    expect(root.resource).toMatchObject({ 'service.name': 'rein' });
    expect(root.scope).toMatchObject({ name: 'rein', schemaUrl: 'https://opentelemetry.io/schemas/1.41.0' });

    // The GenAI client metrics, through the SDK's own OTLP exporter: one token-usage point per token type and one duration point, with the conventions' buckets.
    const points = collector.points;
    const tokenPoints = points.filter((point) => point.metric === 'gen_ai.client.token.usage');
    expect(tokenPoints.map((point) => point.attributes['gen_ai.token.type']).sort()).toEqual(['input', 'output']);
    const sumOf = (type: string) => tokenPoints.find((point) => point.attributes['gen_ai.token.type'] === type)!;
    expect([sumOf('input').sum, sumOf('output').sum]).toEqual([usage.promptTokens, usage.completionTokens]);
    expect(sumOf('input')).toMatchObject({
      unit: '{token}',
      count: models.length,
      explicitBounds: [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864],
      attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'rein.scripted', 'gen_ai.request.model': 'demo-scripted' },
      scope: { name: 'rein', schemaUrl: 'https://opentelemetry.io/schemas/1.41.0' },
    });
    const duration = points.filter((point) => point.metric === 'gen_ai.client.operation.duration');
    expect(duration).toHaveLength(1);
    expect(duration[0]).toMatchObject({
      unit: 's',
      count: models.length,
      explicitBounds: [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92],
    });
    expect(duration[0]!.attributes['error.type']).toBeUndefined();
  }, 120_000);

  it('turns on from OTEL_EXPORTER_OTLP_ENDPOINT alone, with contents when the GenAI variable opts in', async () => {
    const collector = await receiver();
    const result = await runCli(['demo', '--json'], {
      env: cleanEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true', OTEL_SERVICE_NAME: 'agent-ci' }),
    });
    expect(result.code).toBe(0);
    const root = collector.spans.find((span) => span.name === 'invoke_agent rein')!;
    expect(root.resource['service.name']).toBe('agent-ci');
    expect(JSON.parse(root.attributes['gen_ai.input.messages'] as string)[0].parts[0].content).toBe(DEMO_TASK);
    const read = collector.spans.find((span) => span.name === 'execute_tool read_file')!;
    expect(JSON.parse(read.attributes['gen_ai.tool.call.arguments'] as string)).toMatchObject({ path: 'stats.js' });
    expect(read.attributes['gen_ai.tool.call.result']).toContain('export function mean');
    const chat = collector.spans.find((span) => span.name === 'chat demo-scripted' && span.attributes['rein.step'] === 1)!;
    expect(JSON.parse(chat.attributes['gen_ai.output.messages'] as string)[0].parts[0]).toEqual({
      type: 'text',
      content: 'Let me look at the code under test first.',
    });
  }, 120_000);

  it('a dead collector changes nothing in the run: a closed port and one that never answers give the same status and exit code, in bounded time, with one warning', async () => {
    const baseline = await timed(() => runCli(['demo', '--json'], { env: cleanEnv() }));
    expect(baseline.code).toBe(0);
    const hanging = await receiver('hang');
    // A long exporter timeout: an export the run (or its exit) waited on would show here as 30 s.
    const env = cleanEnv({ OTEL_EXPORTER_OTLP_TIMEOUT: '30000' });
    for (const url of [`http://127.0.0.1:${await closedPort()}`, hanging.url]) {
      const result = await timed(() => runCli(['demo', '--otel', url, '--json'], { env, timeoutMs: 120_000 }));
      const exitedAt = Date.now();
      expect(result.code, result.stderr).toBe(baseline.code);
      const summary = summaryOf(result);
      expect(summary).toMatchObject({ status: summaryOf(baseline).status, steps: summaryOf(baseline).steps });
      expect(result.stderr.split('\n').filter((line) => line.startsWith('rein: OpenTelemetry:') && !line.includes('spans go to'))).toHaveLength(1);
      // From the run's end line to the process's exit: the bounded wait for the last spans, plus a margin for a loaded
      // machine; far below the 30 s an export waited on would take. Measured from the trace, so the run's own length
      // (which varies with the machine's load) does not enter into it.
      const trace = traceOf(summary.trace);
      const endedAt = trace.find((line) => line.kind === 'end')!.t * 1000;
      expect(exitedAt - endedAt).toBeLessThan(FLUSH_TIMEOUT_MS + 15_000);
      // And the run itself took no longer than a plain one would on a loaded machine.
      expect(endedAt - trace[0]!.t * 1000).toBeLessThan(3 * baseline.ms + 10_000);
    }
    expect(hanging.requests.length).toBeGreaterThan(0);
  }, 300_000);
});
