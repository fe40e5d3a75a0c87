import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import type { TraceRecord as TraceLine } from '../../lib/trace/trace-events.js';
import { sessionIdOf } from '../../telemetry/session-id.js';
import { createSpanMapper } from '../../telemetry/span-mapper.js';
import { call, type OpenAIStub, removeTempDirs, reply, runScripted, type StubRequest, startOpenAIStub } from '../../testing/index.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { makeTempDir } from '../helpers/workspace.js';

afterEach(() => removeTempDirs());

const explorer = { description: 'Finds code', readOnly: true, budget: { share: 0.5 } };

function mapLines(lines: TraceLine[]): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const mapper = createSpanMapper(provider.getTracer('test'), { content: false });
  for (const line of lines) mapper.line(line);
  mapper.close();
  return exporter.getFinishedSpans();
}

async function delegatingRun() {
  return runScripted({
    files: { 'stats.py': 'def mean(xs):\n    return sum(xs) / len(xs)\n' },
    rules: { agents: { explorer }, verification: { gate: false } },
    script: [reply(call('delegate', { tasks: [{ agent: 'explorer', task: 'Where is mean()?' }] })), reply(call('finish', { summary: 'done' }))],
    agentScripts: { explorer: [reply(call('grep', { pattern: 'def mean' })), reply(call('finish', { summary: 'in stats.py' }))] },
  });
}

describe('a delegated child’s spans nest under its parent’s (telemetry/span-mapper.ts, telemetry/child-traces.ts)', () => {
  it('the child’s invoke_agent span is a child of the delegate call’s span, carrying the parent’s ids', async () => {
    const run = await delegatingRun();
    const spans = mapLines(run.trace);
    const root = spans.find((span) => span.name === 'invoke_agent rein')!;
    const delegate = spans.find((span) => span.name === 'execute_tool delegate')!;
    const child = spans.find((span) => span.name === 'invoke_agent explorer')!;
    expect(child.parentSpanContext?.spanId).toBe(delegate.spanContext().spanId);
    expect(child.spanContext().traceId).toBe(root.spanContext().traceId);
    const start = run.lines('agent')[0]!;
    expect(child.attributes).toMatchObject({
      'gen_ai.agent.name': 'explorer',
      'gen_ai.agent.id': String(start.runDir).split('/').pop(),
      'rein.agent.depth': 1,
      'rein.parent.call_id': start.callId,
      'rein.parent.conversation_id': root.attributes['gen_ai.conversation.id'],
      'rein.parent.run_id': run.runDir.split('/').pop(),
    });
    // The child's own conversation id is its session id (its ATIF subagent trajectory's id), not its parent's.
    const childTrace = run.lines('agent')[0]!.runDir as string;
    expect(child.attributes['gen_ai.conversation.id']).not.toBe(root.attributes['gen_ai.conversation.id']);
    expect(child.attributes['gen_ai.conversation.id']).toBe(sessionIdOf([runScriptedStart(childTrace)], ''));
    // The child's model and tool calls nest under the child's span.
    const underChild = spans.filter((span) => span.parentSpanContext?.spanId === child.spanContext().spanId).map((span) => span.name);
    expect(underChild).toEqual(expect.arrayContaining(['chat scripted-explorer', 'execute_tool grep', 'execute_tool finish']));
    expect(spans.filter((span) => span.name === 'invoke_agent explorer')).toHaveLength(1);
  });

  it('a parent killed while its child ran (no delegate line): the child’s spans go under the parent’s agent span', async () => {
    const run = await delegatingRun();
    const cut = run.trace.slice(
      0,
      run.trace.findIndex((line) => line.kind === 'tool' && line.name === 'delegate'),
    );
    const spans = mapLines(cut);
    const root = spans.find((span) => span.name === 'invoke_agent rein')!;
    const child = spans.find((span) => span.name === 'invoke_agent explorer')!;
    expect(child.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
  });

  it('a child directory outside the parent’s agents/ folder is not read', async () => {
    const run = await delegatingRun();
    const moved = run.trace.map((line) => (line.kind === 'agent' ? { ...line, runDir: join(run.runDir, '..', 'elsewhere', 'x') } : line));
    expect(mapLines(moved).some((span) => span.name === 'invoke_agent explorer')).toBe(false);
  });
});

function runScriptedStart(childRunDir: string): TraceLine {
  return readTrace(childRunDir)[0]!;
}

function readTrace(runDir: string): TraceLine[] {
  return readFileSync(join(runDir, 'trace.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as TraceLine);
}

/** The parent delegates once and finishes; the explorer greps and reports. */
function policy(request: StubRequest) {
  const tools = request.messages.filter((message) => message.role === 'tool');
  if (request.model === 'explorer-model')
    return tools.length === 0
      ? { toolCalls: [{ name: 'grep', arguments: { pattern: 'def mean' } }] }
      : { toolCalls: [{ name: 'finish', arguments: { summary: 'mean() is in stats.py' } }] };
  return tools.length === 0
    ? { toolCalls: [{ name: 'delegate', arguments: { tasks: [{ agent: 'explorer', task: 'Where is mean() defined?' }] } }] }
    : { toolCalls: [{ name: 'finish', arguments: { summary: 'found it' } }] };
}

describe('rein run --otel and rein trace export send a child’s spans under its parent’s (OTLP receiver)', () => {
  let stub: OpenAIStub | undefined;
  const receivers: OtlpReceiver[] = [];
  afterEach(async () => {
    await stub?.close();
    await Promise.all(receivers.splice(0).map((entry) => entry.close()));
  });

  it('live and afterwards: the same nesting', { timeout: 120_000 }, async () => {
    stub = await startOpenAIStub(policy);
    const [live, later] = [await startOtlpReceiver(), await startOtlpReceiver()];
    receivers.push(live, later);
    const repo = makeTempDir('rein-otel-agents-');
    writeFileSync(join(repo, 'stats.py'), 'def mean(xs):\n    return sum(xs) / len(xs)\n');
    const config = join(makeTempDir('rein-config-'), 'rules.json');
    writeFileSync(config, JSON.stringify({ agents: { explorer: { ...explorer, model: 'explorer-model' } }, verification: { gate: false } }));
    const runDir = join(makeTempDir('rein-run-'), 'run');
    const result = await runCli(
      ['run', repo, 'Find mean', '--test-cmd', 'true', '--model', 'parent-model', '--config', config, '--run-dir', runDir, '--otel', live.url, '--json'],
      { env: cleanEnv({ OPENAI_BASE_URL: stub.url }) },
    );
    expect(result.code, result.stderr).toBe(0);
    const exported = await runCli(['trace', 'export', runDir, '--endpoint', later.url, '--json'], { env: cleanEnv() });
    expect(exported.code, exported.stderr).toBe(0);
    for (const spans of [live.spans, later.spans]) {
      const delegate = spans.find((span) => span.name === 'execute_tool delegate')!;
      const child = spans.find((span) => span.name === 'invoke_agent explorer')!;
      expect(child.parentSpanId).toBe(delegate.spanId);
      expect(child.traceId).toBe(delegate.traceId);
      expect(child.attributes['rein.parent.run_id']).toBe('run');
      const chats = spans.filter((span) => span.parentSpanId === child.spanId && span.name === 'chat explorer-model');
      expect(chats).toHaveLength(2);
    }
    const names = (spans: ReceivedSpan[]) => spans.map((span) => span.name).sort();
    expect(names(later.spans)).toEqual(names(live.spans));
  });
});
