import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sessionIdOfTrace } from '../../telemetry/session-id.js';
import { type OpenAIStub, type StubRequest, startOpenAIStub } from '../../testing/index.js';
import { makeTempDir } from '../../testing/temp-dir.js';
import { cleanEnv, reinBin, runCli } from '../helpers/cli.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { waitUntil } from '../helpers/wait.js';

/** A span without its random ids: what must be equal between a live export and one made afterwards. */
function shape(span: ReceivedSpan) {
  return {
    name: span.name,
    kind: span.kind,
    root: span.parentSpanId === '',
    start: span.start,
    end: span.end,
    attributes: span.attributes,
    events: span.events,
    status: span.status,
  };
}

function shapes(spans: ReceivedSpan[]) {
  return spans
    .map(shape)
    .sort((a, b) => a.start - b.start || a.end - b.end || a.name.localeCompare(b.name) || JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('rein trace export: a finished or killed run, sent afterwards', () => {
  const receivers: OtlpReceiver[] = [];
  const receiver = async () => {
    const started = await startOtlpReceiver();
    receivers.push(started);
    return started;
  };
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((entry) => entry.close()));
  });

  it('sends the spans the live export sent, with the original timestamps', async () => {
    const live = await receiver();
    const demo = await runCli(['demo', '--otel', live.url, '--json'], { env: cleanEnv() });
    expect(demo.code).toBe(0);
    const { runDir } = JSON.parse(demo.stdout.trim().split('\n').at(-1)!);
    const later = await receiver();
    const exported = await runCli(['trace', 'export', runDir, '--endpoint', later.url, '--json'], { env: cleanEnv() });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toContain(`sent ${live.spans.length} spans`);
    expect(JSON.parse(exported.stdout)).toMatchObject({ spans: live.spans.length, exported: live.spans.length, skipped: 0 });
    expect(shapes(later.spans)).toEqual(shapes(live.spans));
    // And those times are the trace's: the run span spans the start line to the end line.
    const lines = readFileSync(join(runDir, 'trace.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; t: number });
    const root = later.spans.find((span) => span.parentSpanId === '')!;
    expect([root.start, root.end]).toEqual([lines[0]!.t * 1000, lines.at(-1)!.t * 1000]);
    // The same GenAI metrics as the live export sent (a histogram point's own time is the export's).
    const points = (receiver: OtlpReceiver) =>
      receiver.points
        .map(({ metric, attributes, count, sum, bucketCounts }) => ({ metric, attributes, count, sum, bucketCounts }))
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    expect(points(later)).toHaveLength(3);
    expect(points(later)).toEqual(points(live));
  }, 120_000);

  it("a killed run's trace (cut mid-line) still exports: the cut line is skipped and said, the run span is unfinished", async () => {
    const demo = await runCli(['demo', '--json'], { env: cleanEnv() });
    const { trace } = JSON.parse(demo.stdout.trim().split('\n').at(-1)!);
    const lines = readFileSync(trace, 'utf8').split('\n');
    const cut = join(makeTempDir('rein-cut-', { until: 'exit' }), 'trace.jsonl');
    const kept = Math.floor(lines.length / 2);
    writeFileSync(cut, lines.slice(0, kept).join('\n') + '\n' + lines[kept]!.slice(0, 30));
    const collector = await receiver();
    const result = await runCli(['trace', 'export', cut, '--endpoint', `${collector.url}/v1/traces`], { env: cleanEnv() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`skipped line ${kept + 1} (not JSON`);
    const root = collector.spans.find((span) => span.name === 'invoke_agent rein')!;
    expect(root.attributes).toMatchObject({ 'rein.run.status': 'unfinished', 'error.type': 'unfinished' });
    expect(root.status.code).toBe(2);
    expect(collector.spans.filter((span) => span.name.startsWith('chat ')).length).toBeGreaterThan(0);
  }, 120_000);

  it("redacts with today's key too: a trace written without redaction does not leak it", async () => {
    const key = 'sk-live-0123456789abcdefghijKEY';
    const dir = makeTempDir('rein-raw-', { until: 'exit' });
    writeFileSync(
      join(dir, 'trace.jsonl'),
      [
        { i: 0, t: 1_700_000_000, kind: 'start', model: 'm', endpoint: 'x', runDir: dir, task: `use ${key}` },
        {
          i: 1,
          t: 1_700_000_001,
          kind: 'model',
          step: 1,
          content: `my key is ${key}`,
          tool_calls: [],
          usage: { promptTokens: 1, completionTokens: 1, cachedTokens: 0 },
          ms: 5,
        },
        {
          i: 2,
          t: 1_700_000_002,
          kind: 'end',
          status: 'done',
          steps: 1,
          usage: { calls: 1, promptTokens: 1, completionTokens: 1, cachedTokens: 0, costUsd: 0 },
        },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n') + '\n',
    );
    const collector = await receiver();
    const result = await runCli(['trace', 'export', dir, '--content'], {
      env: cleanEnv({ OPENAI_API_KEY: key, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/v1/traces` }),
    });
    expect(result.code, result.stderr).toBe(0);
    const sent = collector.bodies.join('\n');
    expect(sent).toContain('my key is [redacted]');
    expect(sent).not.toContain(key);
    expect(sent).not.toContain(key.slice(0, 12));
  }, 120_000);

  it("given a directory of runs (an eval's output), sends every run's trace found under it", async () => {
    const dir = makeTempDir('rein-runs-', { until: 'exit' });
    const traceFor = (id: string) =>
      [
        { i: 0, t: 1_700_000_000, kind: 'start', model: 'm', endpoint: 'x', runDir: join(dir, id) },
        {
          i: 1,
          t: 1_700_000_001,
          kind: 'end',
          status: 'done',
          steps: 0,
          usage: { calls: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, costUsd: 0 },
        },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n') + '\n';
    for (const id of ['runs/task-a-default-1', 'runs/task-b-strict-1', 'deeper/runs/task-c-default-2']) {
      mkdirSync(join(dir, id), { recursive: true });
      writeFileSync(join(dir, id, 'trace.jsonl'), traceFor(id));
    }
    writeFileSync(join(dir, 'results.jsonl'), '{}\n');
    const collector = await receiver();
    const result = await runCli(['trace', 'export', dir, '--endpoint', collector.url, '--json'], { env: cleanEnv() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('of 3 traces');
    expect(collector.spans.map((span) => span.attributes['rein.run.dir']).sort()).toEqual(
      ['deeper/runs/task-c-default-2', 'runs/task-a-default-1', 'runs/task-b-strict-1'].map((id) => join(dir, id)),
    );
    // Each run is its own conversation.
    expect(new Set(collector.spans.map((span) => span.attributes['gen_ai.conversation.id'])).size).toBe(3);
    expect(JSON.parse(result.stdout)).toMatchObject({ traces: 3, spans: 3, exported: 3 });
  }, 120_000);

  it('says when the collector did not take the spans (exit 1), and what is wrong with bad input (exit 2)', async () => {
    const demo = await runCli(['demo', '--json'], { env: cleanEnv() });
    const { runDir } = JSON.parse(demo.stdout.trim().split('\n').at(-1)!);
    const port = await closedPort();
    const refused = await runCli(['trace', 'export', runDir, '--endpoint', `http://127.0.0.1:${port}`, '--json'], {
      env: cleanEnv({ OTEL_EXPORTER_OTLP_TIMEOUT: '1500' }),
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`rein trace export: http://127.0.0.1:${port}/v1/traces did not take the spans \\(.+\\); 0 of \\d+ sent`));
    expect(JSON.parse(refused.stdout)).toMatchObject({ exported: 0 });

    const missing = await runCli(['trace', 'export', join(runDir, 'nope.jsonl')], { env: cleanEnv() });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/rein trace export: not found: .*nope\.jsonl/);
    const empty = await runCli(['trace', 'export', makeTempDir('rein-empty-', { until: 'exit' })], { env: cleanEnv() });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/is a directory without a trace/);
    const verb = await runCli(['trace', 'send', runDir], { env: cleanEnv() });
    expect(verb.code).toBe(2);
    expect(verb.stderr).toMatch(/rein trace: unknown subcommand "send"/);
    const badUrl = await runCli(['trace', 'export', runDir, '--endpoint', 'localhost:4318'], { env: cleanEnv() });
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toMatch(/rein trace export: --endpoint: expected an http:\/\/ or https:\/\/ URL/);
    const contentAlone = await runCli(['demo', '--otel-content'], { env: cleanEnv() });
    expect(contentAlone.code).toBe(2);
    expect(contentAlone.stderr).toMatch(/rein demo: --otel-content needs a collector/);
  }, 120_000);
});

describe('rein resume --otel', () => {
  let stub: OpenAIStub | undefined;
  let collector: OtlpReceiver | undefined;
  afterEach(async () => {
    await stub?.close();
    await collector?.close();
    stub = undefined;
    collector = undefined;
  });

  it('exports the resumed segment as a run of the same conversation, marked resumed, with the model and endpoint of the run', async () => {
    let hang = true;
    stub = await startOpenAIStub((request: StubRequest) => {
      const results = request.messages.filter((message) => message.role === 'tool').length;
      if (results === 0) return { toolCalls: [{ name: 'run', arguments: { command: 'node --test' } }] };
      if (hang) return { hang: true };
      return { toolCalls: [{ name: 'finish', arguments: { summary: 'tests pass' } }] };
    });
    const repo = makeTempDir('rein-otel-resume-', { until: 'exit' });
    writeFileSync(join(repo, 'ok.test.js'), "import { test } from 'node:test';\ntest('ok', () => {});\n");
    const runDir = join(repo, '.rein', 'runs', 'killed-1');
    const env = cleanEnv({ OPENAI_BASE_URL: stub.url });
    const child = spawn(process.execPath, [reinBin, 'run', repo, 'Run the tests', '--test-cmd', 'node --test', '--model', 'stub-model', '--run-dir', runDir], {
      env,
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    await waitUntil(() => stub!.requests.length >= 2 && existsSync(join(runDir, 'state.json')), 'the run to wait on its second model call', 60_000);
    child.kill('SIGKILL');
    await exited;

    hang = false;
    collector = await startOtlpReceiver();
    const resumed = await runCli(['resume', runDir, '--otel', collector.url, '--json'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    const roots = collector.spans.filter((span) => span.name === 'invoke_agent rein');
    expect(roots).toHaveLength(1);
    expect(roots[0]!.attributes).toMatchObject({
      // The conversation of the run it resumes: the id its start line gives it (the same as its ATIF session id).
      'gen_ai.conversation.id': sessionIdOfTrace(join(runDir, 'trace.jsonl')),
      'gen_ai.request.model': 'stub-model',
      'gen_ai.provider.name': 'openai',
      'server.address': '127.0.0.1',
      'rein.run.resumed': true,
      'rein.run.status': 'done',
    });
    expect(collector.spans.filter((span) => span.name === 'chat stub-model').length).toBeGreaterThan(0);
    expect(collector.spans.find((span) => span.name === 'execute_tool finish')?.attributes['rein.gate.allowed']).toBe(true);
  }, 120_000);
});
