import path from 'node:path';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, toPromise } from 'xstate';
import type { McpHub } from '../../../actors/mcp/hub.js';
import { createToolRunner } from '../../../actors/tool-runner.js';
import { openCallJournal } from '../../../run/record/call-journal.js';
import { createSpanMapper } from '../../../telemetry/span-mapper.js';
import { defaultLimits, defaultPolicy, makeTempDir } from '../../helpers/workspace.js';
import { MEMORY, openHub, stdio } from './mcp-fixtures.js';

const open: McpHub[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((hub) => hub.close()));
});

const createCall = {
  id: 'c1',
  type: 'function' as const,
  function: { name: 'mcp__memory__create_entities', arguments: JSON.stringify({ entities: [{ name: 'Ada', entityType: 'person', observations: [] }] }) },
};

describe('MCP calls across a kill and in OpenTelemetry', () => {
  it('a call a killed run had started is reported interrupted on resume and never sent again', async () => {
    const memoryFile = path.join(makeTempDir('rein-mcp-memory-'), 'memory.json');
    const opened = await openHub({ memory: stdio([MEMORY], { env: { MEMORY_FILE_PATH: memoryFile } }) });
    open.push(opened.hub);
    const journalPath = path.join(opened.runDir, 'journal.jsonl');
    // The killed process had noted the call as started, and died before its result was journaled.
    const before = openCallJournal(journalPath);
    before.start?.('1:0');
    before.close();
    const journal = openCallJournal(journalPath);
    const runner = createToolRunner({ tools: opened.tools, toolContext: { root: opened.root, limits: defaultLimits, policy: defaultPolicy }, journal });
    const actor = createActor(runner, { input: { calls: [createCall], allowed: 'all', phase: 'build', step: 1, offset: 0 } });
    actor.start();
    const { results } = await toPromise(actor);
    journal.close();
    expect(results[0]!.outcome).toMatchObject({ ok: false, effect: { kind: 'mcp', server: 'memory', tool: 'create_entities', outcome: 'interrupted' } });
    expect(results[0]!.outcome.content).toMatch(/under way when rein was stopped, and it is not sent again/);
    // The server never got it: its graph is still empty.
    expect(JSON.parse((await opened.call('mcp__memory__read_graph', {})).content)).toEqual({ entities: [], relations: [] });
  });

  it('an MCP tool line becomes an execute_tool span with the server and tool as attributes', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const mapper = createSpanMapper(provider.getTracer('test'), { content: false });
    const effect = { kind: 'mcp', server: 'docs', tool: 'search', outcome: 'timeout', readOnly: true };
    mapper.line({ i: 0, t: 1, kind: 'start', task: 't', model: 'm', testCmd: '', tools: [] });
    mapper.line({ i: 1, t: 2, kind: 'tool', step: 1, id: 'c1', name: 'mcp__docs__search', args: {}, ok: false, ms: 5, effect, result: 'Tool error: …' });
    mapper.line({ i: 2, t: 3, kind: 'end', status: 'step_limit', steps: 1 });
    mapper.close();
    const span = exporter.getFinishedSpans().find((candidate) => candidate.name === 'execute_tool mcp__docs__search');
    expect(span?.attributes).toMatchObject({
      'gen_ai.tool.name': 'mcp__docs__search',
      'rein.mcp.server': 'docs',
      'rein.mcp.tool': 'search',
      'rein.tool.outcome': 'timeout',
      'error.type': 'timeout',
    });
  });
});
