import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnswerSource } from '../../actors/approvals/approver.js';
import { scriptedModelSource } from '../../actors/model/model-source.js';
import type { TraceRecord } from '../../lib/trace/trace-events.js';
import type { PendingApproval } from '../../rules/approvals/pending.js';
import { readJsonLines } from '../../run/record/jsonl.js';
import { startRun } from '../../run/start-run.js';
import { call, makeTempDir, removeTempDirs, reply, rulesSchema, runScripted } from '../../testing/index.js';

afterEach(() => removeTempDirs());

describe('the boundary holds for children', () => {
  it('a child’s approvals reach the parent’s answer source with the child named; its hooks are told which agent asks', async () => {
    const workspace = makeTempDir('rein-ws-');
    const runDir = makeTempDir('rein-run-');
    const asked: PendingApproval[] = [];
    const person: AnswerSource = {
      by: 'terminal',
      ask: async (pending) => {
        asked.push(pending);
        return { verdict: 'allow' };
      },
    };
    const rules = rulesSchema.parse({
      agents: { builder: { description: 'builds', tools: ['run'] } },
      approvals: { ask: [{ tool: 'run' }] },
      hooks: { preToolUse: [{ command: 'echo "agent=$REIN_AGENT depth=$REIN_AGENT_DEPTH" >&2', tools: 'run' }] },
      verification: { gate: false },
      phases: { plan: { enabled: false } },
    });
    const handle = await startRun({
      workspace,
      runDir,
      task: 'Build it.',
      testCmd: '',
      rules,
      answerSources: [person],
      model: scriptedModelSource('parent', [
        reply(call('delegate', { tasks: [{ agent: 'builder', task: 'Write out.txt.' }] })),
        reply(call('finish', { summary: 'done' })),
      ]),
      agentModels: {
        builder: scriptedModelSource('builder', [reply(call('run', { command: 'echo hi > out.txt' })), reply(call('finish', { summary: 'wrote it' }))]),
      },
      fsync: false,
    });
    expect((await handle.done).status).toBe('done');
    expect(asked).toHaveLength(1);
    expect(asked[0]?.reason).toContain('asked by agent "builder" (a child at depth 1, 1:0:0)');
    expect(readFileSync(join(workspace, 'out.txt'), 'utf8')).toBe('hi\n');
    const hook = readJsonLines<TraceRecord>(join(runDir, 'agents', '1-0-0-builder', 'trace.jsonl')).values.find((line) => line.kind === 'hook');
    expect(hook?.stderr).toContain('agent=builder depth=1');
  });

  it('a read-only child cannot edit or run, whatever its model asks', async () => {
    const run = await runScripted({
      files: { 'a.txt': 'one\n' },
      rules: { agents: { reviewer: { description: 'reviews', readOnly: true, tools: ['*'] } }, verification: { gate: false } },
      script: [reply(call('delegate', { tasks: [{ agent: 'reviewer', task: 'Review.' }] })), reply(call('finish', { summary: 'done' }))],
      agentScripts: {
        reviewer: [
          reply(call('edit_file', { path: 'a.txt', old: 'one', new: 'two' }), call('run', { command: 'echo x > b.txt' })),
          reply(call('finish', { summary: 'looked only' })),
        ],
      },
    });
    expect(readFileSync(join(run.workspace, 'a.txt'), 'utf8')).toBe('one\n');
    const child = run.lines('agent').find((line) => line.event === 'start');
    const { values } = readJsonLines<TraceRecord>(join(String(child?.runDir), 'trace.jsonl'));
    const refused = values.filter((line) => line.kind === 'tool' && (line.name === 'edit_file' || line.name === 'run'));
    expect(refused.map((line) => String(line.result).slice(0, 40))).toEqual([
      'Tool error: unknown tool "edit_file". Av',
      'Tool error: unknown tool "run". Availabl',
    ]);
  });
});
