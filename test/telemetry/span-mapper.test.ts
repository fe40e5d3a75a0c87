import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, reply } from '../../actors/model/scripted-model.js';
import { DEMO_TASK, DEMO_TEST_CMD, demoScript } from '../../cli/demo/demo-model.js';
import type { TraceRecord as TraceLine } from '../../lib/trace/trace-events.js';
import { exportRunAsAtif } from '../../telemetry/atif/export-run.js';
import type { ModelCallMeasure } from '../../telemetry/genai-metrics.js';
import { sessionIdOf } from '../../telemetry/session-id.js';
import { createSpanMapper } from '../../telemetry/span-mapper.js';
import { runScripted, type ScriptedRunResult } from '../../testing/index.js';
import { demoRepoFiles } from '../helpers/demo-files.js';

/** Maps trace lines with the SDK's in-memory exporter (a unit test: the OTLP path has its own tests against a real receiver). */
function mapLines(
  lines: TraceLine[],
  options: { content?: boolean; facts?: { runId?: string; model?: string; endpoint?: string }; metrics?: ModelCallMeasure[] } = {},
): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)], spanLimits: { eventCountLimit: 8192 } });
  const metrics = options.metrics;
  const mapper = createSpanMapper(provider.getTracer('test'), {
    content: options.content ?? false,
    ...(options.facts ? { facts: options.facts } : {}),
    ...(metrics ? { metrics: { record: (call: ModelCallMeasure) => metrics.push(call) } } : {}),
  });
  for (const line of lines) mapper.line(line);
  mapper.close();
  return exporter.getFinishedSpans();
}

const millis = (span: ReadableSpan, which: 'startTime' | 'endTime') => span[which][0] * 1000 + span[which][1] / 1e6;
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe('the span mapper on a real run (the demo script, real tools)', () => {
  let run: ScriptedRunResult;
  beforeAll(async () => {
    run = await runScripted({ files: demoRepoFiles(), script: demoScript, task: DEMO_TASK, testCmd: DEMO_TEST_CMD });
  }, 60_000);

  it('makes one invoke_agent span with a chat child per model line and an execute_tool child per tool call', () => {
    const spans = mapLines(run.trace);
    const root = spans.filter((span) => span.name === 'invoke_agent rein');
    expect(root).toHaveLength(1);
    const children = spans.filter((span) => span !== root[0]);
    expect(children.every((span) => parentOf(span) === root[0]!.spanContext().spanId && span.spanContext().traceId === root[0]!.spanContext().traceId)).toBe(
      true,
    );
    const models = run.lines('model');
    const chats = spans.filter((span) => span.name === `chat ${run.lines('start')[0]!.model}`);
    expect(chats).toHaveLength(models.length);
    // The scripted model runs in the process: the conventions' INTERNAL case (a model behind a URL is CLIENT, below).
    expect(chats.every((span) => span.kind === SpanKind.INTERNAL)).toBe(true);
    chats.forEach((span, index) => {
      const usage = models[index]!.usage as { promptTokens: number; completionTokens: number; cachedTokens: number };
      expect(span.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'rein.scripted',
        'gen_ai.request.model': 'scripted',
        'gen_ai.usage.input_tokens': usage.promptTokens,
        'gen_ai.usage.output_tokens': usage.completionTokens,
        'gen_ai.usage.cache_read.input_tokens': usage.cachedTokens,
        'gen_ai.response.finish_reasons': ['tool_calls'],
        'rein.step': index + 1,
      });
    });
    // Every tool call the model made has a span: the executed ones from tool lines, the two finish calls from the gate's lines.
    const calls = models.flatMap((line) =>
      (line.tool_calls as Array<{ id: string; function: { name: string } }>).map((toolCall) => `${toolCall.function.name}:${toolCall.id}`),
    );
    const tools = spans.filter((span) => span.name.startsWith('execute_tool '));
    expect(tools.map((span) => `${span.attributes['gen_ai.tool.name']}:${span.attributes['gen_ai.tool.call.id']}`).sort()).toEqual(calls.sort());
    expect(tools.every((span) => span.name === `execute_tool ${span.attributes['gen_ai.tool.name']}` && span.kind === SpanKind.INTERNAL)).toBe(true);
  });

  it("gives each span its line's times: a tool span starts its duration before its line", () => {
    const spans = mapLines(run.trace);
    const tools = run.lines('tool');
    const toolSpans = spans.filter((span) => span.name.startsWith('execute_tool ') && span.name !== 'execute_tool finish');
    toolSpans.forEach((span, index) => {
      expect(millis(span, 'endTime')).toBeCloseTo(tools[index]!.t * 1000, 3);
      expect(millis(span, 'startTime')).toBeCloseTo(tools[index]!.t * 1000 - (tools[index]!.ms as number), 3);
    });
    const root = spans.find((span) => span.name === 'invoke_agent rein')!;
    expect(millis(root, 'startTime')).toBeCloseTo(run.lines('start')[0]!.t * 1000, 3);
    expect(millis(root, 'endTime')).toBeCloseTo(run.lines('end')[0]!.t * 1000, 3);
  });

  it("puts the run's outcome, usage and rein facts on the run span: status, phase changes with their guard, gate decisions", () => {
    const spans = mapLines(run.trace);
    const root = spans.find((span) => span.name === 'invoke_agent rein')!;
    const end = run.lines('end')[0]!;
    const usage = end.usage as { promptTokens: number; completionTokens: number; cachedTokens: number; calls: number };
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'rein',
      // The run's ATIF session id, so the spans and the trajectory of one run can be matched.
      'gen_ai.conversation.id': exportRunAsAtif(run.runDir).session_id,
      'gen_ai.agent.version': run.lines('start')[0]!.reinVersion,
      'gen_ai.usage.input_tokens': usage.promptTokens,
      'gen_ai.usage.output_tokens': usage.completionTokens,
      'gen_ai.usage.cache_read.input_tokens': usage.cachedTokens,
      'rein.run.status': 'done',
      'rein.run.steps': 9,
      'rein.model.calls': usage.calls,
    });
    expect(root.status.code).not.toBe(SpanStatusCode.ERROR);
    const phases = root.events
      .filter((event) => event.name === 'rein.phase_change')
      .map((event) => `${event.attributes?.['rein.from'] ?? ''}→${event.attributes?.['rein.to']} [${event.attributes?.['rein.guard'] ?? ''}]`);
    expect(phases).toEqual([
      '→plan []',
      'plan→build [todoWritten]',
      'build→verify [finishRefused]',
      'verify→fix [testFailed]',
      'fix→verify [testedAfterEdit]',
      'verify→done [testsPassedSinceLastEdit]',
    ]);
    const gates = root.events.filter((event) => event.name === 'rein.gate').map((event) => event.attributes?.['rein.gate.allowed']);
    expect(gates).toEqual([false, true]);
    // The refused finish is a failed tool call, judged in the phase its model call was made in.
    const refused = spans.find((span) => span.name === 'execute_tool finish' && span.attributes['rein.gate.allowed'] === false)!;
    expect(refused.status.code).toBe(SpanStatusCode.ERROR);
    expect(refused.attributes).toMatchObject({ 'error.type': 'refused', 'rein.phase': 'build', 'rein.gate.why': 'no passing test run after the last edit' });
    const rejected = spans.find((span) => span.attributes['rein.tool.outcome'] === 'rejected')!;
    expect(rejected.attributes).toMatchObject({ 'gen_ai.tool.name': 'edit_file', 'error.type': 'rejected', 'rein.phase': 'fix' });
    const failingTests = spans.find((span) => span.attributes['rein.command.exit_code'] === 1)!;
    expect(failingTests.status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it('leaves contents out unless asked: messages, arguments, results, the task and the summary', () => {
    const contentKeys = [
      'gen_ai.output.messages',
      'gen_ai.input.messages',
      'gen_ai.system_instructions',
      'gen_ai.tool.call.arguments',
      'gen_ai.tool.call.result',
      'rein.command',
      'rein.tool.path',
    ];
    const plain = mapLines(run.trace);
    expect(plain.flatMap((span) => Object.keys(span.attributes)).filter((key) => contentKeys.includes(key))).toEqual([]);
    expect(JSON.stringify(plain.map((span) => span.attributes))).not.toContain('stats.js');
    const withContent = mapLines(run.trace, { content: true });
    const root = withContent.find((span) => span.name === 'invoke_agent rein')!;
    expect(JSON.parse(root.attributes['gen_ai.input.messages'] as string)).toEqual([{ role: 'user', parts: [{ type: 'text', content: DEMO_TASK }] }]);
    expect(JSON.parse(root.attributes['gen_ai.output.messages'] as string)[0].parts[0].content).toBe(run.output.summary);
    const firstChat = withContent.find((span) => span.name === `chat ${run.lines('start')[0]!.model}`)!;
    expect(JSON.parse(firstChat.attributes['gen_ai.output.messages'] as string)).toEqual([
      {
        role: 'assistant',
        finish_reason: 'tool_calls',
        parts: [
          { type: 'text', content: 'Let me look at the code under test first.' },
          { type: 'tool_call', id: 'call_1_0', name: 'read_file', arguments: { path: 'stats.js' } },
        ],
      },
    ]);
    const read = withContent.find((span) => span.name === 'execute_tool read_file')!;
    expect(JSON.parse(read.attributes['gen_ai.tool.call.arguments'] as string)).toMatchObject({ path: 'stats.js' });
    expect(read.attributes['gen_ai.tool.call.result']).toContain('export function mean');
  });
});

describe('the span mapper on sandbox lines', () => {
  it('a background job and a masked secret become run events; the command only with contents, the secret never', () => {
    const start = {
      i: 0,
      t: 1,
      kind: 'start',
      version: 1,
      task: 't',
      testCmd: 'npm test',
      model: 'm',
      endpoint: 'e',
      workspace: '/w',
      runDir: '/w/r',
      sandbox: 's',
      tools: [],
      rules: {},
    };
    const lines: TraceLine[] = [
      start,
      { i: 1, t: 2, kind: 'job', id: '1', command: 'npm run dev', state: 'exited', exitCode: 2, pgid: 7, log: 'jobs/1.log', startedAt: 'x' },
      {
        i: 2,
        t: 3,
        kind: 'secrets_masked',
        step: 3,
        id: 'call_1',
        name: 'run',
        findings: [
          { kind: 'github-token', line: 1, column: 1 },
          { kind: 'github-token', line: 4, column: 2 },
        ],
      },
    ];
    const events = (content: boolean) => mapLines(lines, { content }).find((span) => span.name === 'invoke_agent rein')!.events;
    const plain = events(false);
    expect(plain.find((event) => event.name === 'rein.job')!.attributes).toEqual({
      'rein.job.id': '1',
      'rein.job.state': 'exited',
      'rein.command.exit_code': 2,
    });
    expect(plain.find((event) => event.name === 'rein.secrets_masked')!.attributes).toEqual({ 'rein.step': 3, 'rein.secrets.kinds': 'github-token' });
    expect(events(true).find((event) => event.name === 'rein.job')!.attributes!['rein.command']).toBe('npm run dev');
  });
});

describe('the span mapper on lines a run writes when things go wrong', () => {
  it('a model call that fails becomes a chat span with error.type, its retries as events; the run ends failed', async () => {
    const run = await runScripted({
      files: { 'a.js': 'x\n' },
      testCmd: 'true',
      script: [reply(call('read_file', { path: 'a.js' })), new Error('upstream said no')],
    });
    expect(run.output.status).toBe('failed');
    const trace: TraceLine[] = [];
    for (const line of run.trace) {
      trace.push(line);
      // A retry line as the OpenAI source writes it, before the failing call's end.
      if (line.kind === 'transition' && line.to === 'plan.think' && trace.filter((entry) => entry.kind === 'model').length === 1) {
        trace.push({ i: -1, t: line.t, kind: 'retry', error: 'APIConnectionError: Connection error.', attempt: 1, delayMs: 500 });
      }
    }
    const measured: ModelCallMeasure[] = [];
    const spans = mapLines(trace, { metrics: measured });
    const chats = spans.filter((span) => span.name.startsWith('chat '));
    expect(chats).toHaveLength(2);
    // Each call is measured: the answered one with its tokens, the failed one with its duration and error type (no tokens).
    expect(measured.map((entry) => [entry.errorType, entry.inputTokens === undefined])).toEqual([
      [undefined, false],
      ['Error', true],
    ]);
    expect(measured[1]!.seconds).toBeGreaterThanOrEqual(0);
    expect(measured[1]!.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'rein.scripted' });
    const failed = chats[1]!;
    expect(failed.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'Error: upstream said no' });
    expect(failed.attributes['error.type']).toBe('Error');
    expect(failed.events.map((event) => [event.name, event.attributes?.['rein.retry.attempt']])).toEqual([['rein.retry', 1]]);
    const root = spans.find((span) => span.name === 'invoke_agent rein')!;
    expect(root.attributes).toMatchObject({ 'rein.run.status': 'failed', 'error.type': 'failed' });
    expect(root.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('compactions go on the chat span they prepared, with sizes before and after; stall nudges and budget warnings on the run', () => {
    const t0 = 1_700_000_000;
    const lines: TraceLine[] = [
      { i: 0, t: t0, kind: 'start', model: 'm', endpoint: 'openai-compatible endpoint https://llm.example:8443/v1', runDir: '/x/.rein/runs/r1', task: 'T' },
      { i: 1, t: t0 + 1, kind: 'context', action: 'elided', before: { chars: 9000, tokens: 2250 }, after: { chars: 4000, tokens: 1000 }, step: 3 },
      { i: 2, t: t0 + 1.5, kind: 'transition', from: 'build.compact', to: 'build.think', event: 'xstate.done.actor.contextManager' },
      { i: 3, t: t0 + 3, kind: 'model', step: 4, content: 'x', tool_calls: [], usage: { promptTokens: 10, completionTokens: 2, cachedTokens: 0 }, ms: 1200 },
      { i: 4, t: t0 + 3, kind: 'stall', rule: 'repeatedAction', limit: 3, message: 'You ran `npm test` three times', step: 4, firings: 1 },
      { i: 5, t: t0 + 3, kind: 'budget_warning', budget: 'steps', step: 4, limit: 5 },
      {
        i: 6,
        t: t0 + 3.1,
        kind: 'progress',
        step: 4,
        results: [
          { id: 'c1', name: 'run', kinds: ['newInfo', 'testChange'] },
          { id: 'c2', name: 'edit_file', kinds: ['newInfo', 'newFileState'] },
        ],
      },
      { i: 7, t: t0 + 3.2, kind: 'some_future_kind', step: 4, secret: 'not exported' },
      {
        i: 8,
        t: t0 + 4,
        kind: 'end',
        status: 'stalled',
        reason: 'stalled after 3 nudges',
        steps: 4,
        usage: { calls: 1, promptTokens: 10, completionTokens: 2, cachedTokens: 0, costUsd: 0 },
      },
    ];
    const spans = mapLines(lines);
    const chat = spans.find((span) => span.name === 'chat m')!;
    expect(chat.kind).toBe(SpanKind.CLIENT);
    expect(chat.attributes).toMatchObject({
      'gen_ai.provider.name': 'openai',
      'server.address': 'llm.example',
      'server.port': 8443,
      'gen_ai.response.finish_reasons': ['stop'],
    });
    expect(millis(chat, 'startTime')).toBe((t0 + 3) * 1000 - 1200);
    expect(chat.events).toHaveLength(1);
    expect(chat.events[0]).toMatchObject({
      name: 'rein.context',
      attributes: { 'rein.context.action': 'elided', 'rein.context.before.chars': 9000, 'rein.context.after.tokens': 1000 },
    });
    const root = spans.find((span) => span.name === 'invoke_agent rein')!;
    expect(root.attributes).toMatchObject({ 'gen_ai.conversation.id': sessionIdOf([lines[0]!], ''), 'rein.run.status': 'stalled', 'error.type': 'stalled' });
    expect(root.events.map((event) => event.name)).toEqual(['rein.stall', 'rein.budget_warning', 'rein.progress', 'rein.trace.some_future_kind']);
    expect(root.events[2]!.attributes).toEqual({
      'rein.step': 4,
      'rein.progress.tools': 'run,edit_file',
      'rein.progress.kinds': 'newInfo,testChange,newFileState',
    });
    expect(root.events[0]!.attributes).toMatchObject({ 'rein.stall.rule': 'repeatedAction', 'rein.stall.limit': 3 });
    expect(root.events[0]!.attributes?.['rein.message']).toBeUndefined();
    expect(JSON.stringify(root.events)).not.toContain('not exported');
    // Times of a run long past stay where they were (the SDK would read a bare number of milliseconds as an offset).
    expect(millis(root, 'startTime')).toBe(t0 * 1000);
  });

  it('a resumed trace is two runs of one conversation: the killed segment ends unfinished at its last line, the next is marked resumed', () => {
    const t0 = 1_700_000_000;
    const lines: TraceLine[] = [
      { i: 0, t: t0, kind: 'start', model: 'm', endpoint: 'built-in scripted model', runDir: '/w/.rein/runs/r2' },
      {
        i: 1,
        t: t0 + 2,
        kind: 'tool',
        step: 1,
        id: 'c1',
        name: 'run',
        args: {},
        ok: true,
        ms: 500,
        effect: { kind: 'command', exitCode: 0, timedOut: false, blocked: false },
        result: 'exit=0',
      },
      { i: 2, t: t0 + 60, kind: 'resume', fromState: 'build.observe', recordLength: 5, elapsedMs: 2000 },
      {
        i: 3,
        t: t0 + 61,
        kind: 'end',
        status: 'done',
        reason: 'ok',
        steps: 2,
        usage: { calls: 2, promptTokens: 1, completionTokens: 1, cachedTokens: 0, costUsd: 0 },
      },
      { i: 4, t: t0 + 62, kind: 'tool', step: 9, id: 'late', name: 'run', ok: true, ms: 1 },
    ];
    const spans = mapLines(lines);
    const runs = spans.filter((span) => span.name === 'invoke_agent rein');
    expect(runs).toHaveLength(2);
    const conversation = sessionIdOf([lines[0]!], '');
    expect(runs.map((span) => span.attributes['gen_ai.conversation.id'])).toEqual([conversation, conversation]);
    expect(runs[0]!.attributes).toMatchObject({ 'rein.run.status': 'unfinished', 'error.type': 'unfinished' });
    expect(millis(runs[0]!, 'endTime')).toBe((t0 + 2) * 1000);
    expect(runs[1]!.attributes).toMatchObject({ 'rein.run.resumed': true, 'rein.run.status': 'done' });
    expect(runs[1]!.events.map((event) => event.name)).toEqual(['rein.resume']);
    // A line after the end belongs to no run: no phantom third run.
    expect(spans.filter((span) => span.attributes['gen_ai.tool.call.id'] === 'late')).toEqual([]);
  });

  it('a resumed run exported live has no start line: the run id, model and endpoint come from the facts given', () => {
    const spans = mapLines(
      [
        { i: 40, t: 1_700_000_100, kind: 'resume', fromState: 'fix.observe', recordLength: 9, elapsedMs: 100 },
        {
          i: 41,
          t: 1_700_000_101,
          kind: 'model',
          step: 5,
          content: null,
          tool_calls: [],
          usage: { promptTokens: 3, completionTokens: 1, cachedTokens: 0 },
          ms: 10,
        },
        { i: 42, t: 1_700_000_102, kind: 'interrupted', state: 'fix.act' },
      ],
      { facts: { runId: 'r3', model: 'qwen', endpoint: 'openai-compatible endpoint http://127.0.0.1:8000/v1' } },
    );
    const root = spans.find((span) => span.name === 'invoke_agent rein')!;
    expect(root.attributes).toMatchObject({
      'gen_ai.conversation.id': 'r3',
      'gen_ai.request.model': 'qwen',
      'rein.run.resumed': true,
      'rein.run.status': 'interrupted',
    });
    expect(spans.find((span) => span.name === 'chat qwen')!.attributes).toMatchObject({ 'server.address': '127.0.0.1', 'server.port': 8000 });
  });

  it('lines written before the start line (MCP servers starting) join the run: one root span, not an extra one in error', () => {
    const t0 = 1_700_000_000;
    const start = {
      i: 2,
      t: t0 + 1,
      kind: 'start',
      model: 'm',
      endpoint: 'openai-compatible endpoint http://llm.example:8443/v1',
      runDir: '/w/.rein/runs/r5',
      pid: 7,
      host: 'h',
    };
    const lines: TraceLine[] = [
      {
        i: 0,
        t: t0,
        kind: 'mcp_server',
        server: 'docs',
        state: 'ready',
        restarts: 0,
        problem: null,
        where: 'Streamable HTTP at https://docs.example:9443/mcp',
        tools: 3,
      },
      { i: 1, t: t0 + 0.5, kind: 'mcp_server', server: 'memory', state: 'ready', restarts: 0, problem: null, where: 'stdio, sandboxed (bubblewrap)', tools: 9 },
      start,
      {
        i: 3,
        t: t0 + 3,
        kind: 'model',
        step: 1,
        content: null,
        tool_calls: [],
        usage: { promptTokens: 90, completionTokens: 4, cachedTokens: 0 },
        ms: 800,
        responseId: 'chatcmpl-42',
        responseModel: 'm-2026-01',
      },
      ...(['docs', 'memory'] as const).map((server, index) => ({
        i: 4 + index,
        t: t0 + 4 + index,
        kind: 'tool',
        step: 1,
        id: `c${index}`,
        name: `mcp__${server}__lookup`,
        args: {},
        ok: index === 0,
        ms: 100,
        effect: { kind: 'mcp', server, tool: 'lookup', outcome: index === 0 ? 'ok' : 'error', readOnly: false },
        result: 'x',
      })),
      { i: 6, t: t0 + 9, kind: 'end', status: 'done', steps: 1, usage: { calls: 1, promptTokens: 90, completionTokens: 4, cachedTokens: 0, costUsd: 0 } },
    ];
    const spans = mapLines(lines);
    const roots = spans.filter((span) => !parentOf(span));
    expect(roots.map((span) => [span.name, span.status.code])).toEqual([['invoke_agent rein', SpanStatusCode.UNSET]]);
    expect(millis(roots[0]!, 'startTime')).toBe(t0 * 1000);
    expect(roots[0]!.events.filter((event) => event.name === 'rein.trace.mcp_server')).toHaveLength(2);
    const conversation = sessionIdOf([start], '');
    expect(spans.find((span) => span.name === 'chat m')!.attributes).toMatchObject({
      'gen_ai.conversation.id': conversation,
      'gen_ai.response.id': 'chatcmpl-42',
      'gen_ai.response.model': 'm-2026-01',
    });
    // The MCP conventions' attributes on the execute_tool span of each MCP call: an HTTP server over tcp, a stdio one over a pipe.
    const [docs, memory] = spans.filter((span) => span.name.startsWith('execute_tool mcp__'));
    expect(docs!.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'server.address': 'docs.example',
      'server.port': 9443,
      'gen_ai.operation.name': 'execute_tool',
    });
    expect(memory!.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'network.transport': 'pipe', 'error.type': 'tool_error' });
    expect(memory!.attributes['server.address']).toBeUndefined();
  });

  it('a trace cut before its start line is still one run span holding what it has', () => {
    const spans = mapLines([{ i: 0, t: 1_700_000_000, kind: 'mcp_server', server: 'docs', state: 'failed', restarts: 3, problem: 'gone' }]);
    expect(spans.map((span) => span.name)).toEqual(['invoke_agent rein']);
  });

  it('a model call cut short by the time budget or Ctrl+C is a chat span too, ended when it was cut, with error.type', () => {
    const t0 = 1_700_000_000;
    const think = (i: number, t: number): TraceLine => ({
      i,
      t,
      kind: 'transition',
      from: 'fix.compact',
      to: 'fix.think',
      event: 'xstate.done.actor.contextManager',
    });
    const timedOut = mapLines([
      { i: 0, t: t0, kind: 'start', model: 'm', endpoint: 'x', runDir: '/r/r5' },
      think(1, t0 + 1),
      { i: 2, t: t0 + 31, kind: 'transition', from: 'fix.think', to: 'timeout', event: 'clock.expired' },
      { i: 3, t: t0 + 31, kind: 'end', status: 'timeout', reason: 'time budget', steps: 3, usage: {} },
    ]);
    const cut = timedOut.find((span) => span.name === 'chat m')!;
    expect(cut.attributes['error.type']).toBe('timeout');
    expect([millis(cut, 'startTime'), millis(cut, 'endTime')]).toEqual([(t0 + 1) * 1000, (t0 + 31) * 1000]);
    const interrupted = mapLines([
      { i: 0, t: t0, kind: 'start', model: 'm', endpoint: 'x', runDir: '/r/r6' },
      think(1, t0 + 1),
      { i: 2, t: t0 + 5, kind: 'interrupted', state: 'fix.think' },
    ]);
    expect(interrupted.find((span) => span.name === 'chat m')!.attributes['error.type']).toBe('cancelled');
    // A model call that answered is not cut short by what follows.
    const answered = mapLines([
      { i: 0, t: t0, kind: 'start', model: 'm', endpoint: 'x', runDir: '/r/r7' },
      think(1, t0 + 1),
      { i: 2, t: t0 + 2, kind: 'model', step: 1, content: 'x', tool_calls: [], usage: {}, ms: 900 },
      { i: 3, t: t0 + 2, kind: 'transition', from: 'fix.think', to: 'fix.review', event: 'xstate.done.actor.model' },
      { i: 4, t: t0 + 3, kind: 'interrupted', state: 'fix.review' },
    ]);
    expect(answered.filter((span) => span.name === 'chat m').map((span) => span.attributes['error.type'])).toEqual([undefined]);
  });

  it('a trace cut off mid-run still maps: the open run ends at its last line as unfinished', () => {
    const spans = mapLines([
      { i: 0, t: 1_700_000_000, kind: 'start', model: 'm', endpoint: 'x', runDir: '/r/r4' },
      { i: 1, t: 1_700_000_005, kind: 'transition', from: '', to: 'plan.think', event: 'xstate.done.actor.contextManager' },
    ]);
    expect(spans).toHaveLength(1);
    expect(spans[0]!.attributes['rein.run.status']).toBe('unfinished');
    expect(millis(spans[0]!, 'endTime')).toBe(1_700_000_005_000);
  });
});
