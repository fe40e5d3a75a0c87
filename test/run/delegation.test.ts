import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TraceRecord } from '../../lib/trace/trace-events.js';
import { readJsonLines } from '../../run/record/jsonl.js';
import { call, removeTempDirs, reply, runScripted } from '../../testing/index.js';

afterEach(() => removeTempDirs());

const files = { 'src/mean.py': 'def mean(xs):\n    return sum(xs) / len(xs)\n' };
const explorer = { description: 'Finds where things are in the code', readOnly: true, budget: { share: 0.5 } };

function childTrace(runDir: string): TraceRecord[] {
  return readJsonLines<TraceRecord>(join(runDir, 'trace.jsonl')).values;
}

describe('delegation: a child agent is a run of its own, linked to its parent', () => {
  it('runs the child to its report, charges its usage to the parent at once and splits it per agent', async () => {
    const run = await runScripted({
      files,
      rules: { agents: { explorer }, verification: { gate: false }, budgets: { maxSteps: 20 } },
      script: [reply(call('delegate', { tasks: [{ agent: 'explorer', task: 'Where is mean() defined?' }] })), reply(call('finish', { summary: 'done' }))],
      agentScripts: {
        explorer: [reply(call('grep', { pattern: 'def mean' })), reply(call('finish', { summary: 'mean() is in src/mean.py line 1' }))],
      },
    });
    expect(run.output.status).toBe('done');
    const result = run.lines('tool').find((line) => line.name === 'delegate');
    expect(result?.result).toContain('Agent "explorer" finished (2 steps');
    expect(result?.result).toContain('mean() is in src/mean.py line 1');
    const started = run.lines('agent').find((line) => line.event === 'start');
    const ended = run.lines('agent').find((line) => line.event === 'end');
    expect(started).toMatchObject({ agent: 'explorer', depth: 1, caps: { steps: 9 } });
    expect(ended).toMatchObject({ agent: 'explorer', status: 'done', steps: 2 });
    // The child's trace names its parent: the run, the delegate call, the agent.
    const childStart = childTrace(String(started?.runDir)).find((line) => line.kind === 'start');
    expect(childStart?.parent).toMatchObject({ agent: 'explorer', depth: 1, parentRunDir: run.runDir, callId: started?.callId });
    // The parent's totals are its own and the child's; the split adds up.
    const agents = run.output.agents ?? [];
    expect(agents.map((entry) => entry.agent)).toEqual(['main', 'explorer']);
    expect(agents[1]).toMatchObject({ runs: 1, steps: 2 });
    const sum = agents.reduce((total, entry) => total + entry.usage.promptTokens, 0);
    expect(sum).toBe(run.output.usage.promptTokens);
    expect(agents[1]!.usage.calls).toBe(2);
    expect(run.output.usage.calls).toBe(4);
    expect(readFileSync(join(run.workspace, 'src/mean.py'), 'utf8')).toContain('def mean');
  });
});
