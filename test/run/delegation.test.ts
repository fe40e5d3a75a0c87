import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TraceRecord } from '../../lib/trace/trace-events.js';
import { readJsonLines } from '../../run/record/jsonl.js';
import { exportRunAsAtif } from '../../telemetry/atif/export-run.js';
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
    // ATIF v1.7: the child's trajectory embedded, and the delegate call's result pointing at it by its id.
    const trajectory = exportRunAsAtif(run.runDir);
    const [child] = trajectory.subagent_trajectories ?? [];
    expect(child?.trajectory_id).toEqual(expect.any(String));
    expect(child?.steps.filter((step) => step.source === 'agent').map((step) => step.tool_calls?.[0]?.function_name)).toEqual(['grep', 'finish']);
    const delegateResult = trajectory.steps.flatMap((step) => step.observation?.results ?? []).find((entry) => entry.source_call_id === started?.callId);
    expect(delegateResult?.subagent_trajectory_ref).toEqual([{ trajectory_id: child?.trajectory_id }]);
  });
});

/** A child's replies that always find something new, so only its budget can stop it. */
const exploring = (count: number) => Array.from({ length: count }, (_, index) => reply(call('grep', { pattern: `mean${index}` })));

describe('delegation: budgets no child can overspend', () => {
  it('a child that uses up its step budget returns what it found, and the parent goes on', async () => {
    const run = await runScripted({
      files,
      rules: { agents: { explorer: { ...explorer, budget: { share: 1, maxSteps: 3 } } }, verification: { gate: false } },
      script: [reply(call('delegate', { tasks: [{ agent: 'explorer', task: 'Look around.' }] })), reply(call('finish', { summary: 'done' }))],
      agentScripts: { explorer: [{ content: 'Found mean in src/mean.py', calls: [{ name: 'grep', args: { pattern: 'x' } }] }, ...exploring(2)] },
    });
    const result = run.lines('tool').find((line) => line.name === 'delegate')?.result;
    expect(result).toContain('Agent "explorer" stopped before finishing: its step budget (3 steps) was exhausted after 3 steps');
    expect(result).toContain('What it found before it stopped:\nFound mean in src/mean.py');
    expect(run.lines('agent').find((line) => line.event === 'end')).toMatchObject({ status: 'step_limit', steps: 3 });
    expect(run.output.status).toBe('done');
    run.agentModels.explorer?.assertDone();
  });

  it('the parent’s step budget counts its children’s steps: the tree stops at the parent’s cap', async () => {
    const run = await runScripted({
      files,
      rules: { agents: { explorer: { ...explorer, budget: { share: 1, maxSteps: 4 } } }, verification: { gate: false }, budgets: { maxSteps: 8 } },
      script: [reply(call('delegate', { tasks: [{ agent: 'explorer', task: 'Look around.' }] })), ...exploring(10)],
      agentScripts: { explorer: exploring(4) },
    });
    expect(run.output.status).toBe('step_limit');
    // 8 steps in all: the parent's own 4 and the child's 4.
    expect(run.output.steps).toBe(4);
    expect(run.output.agents?.map((entry) => [entry.agent, entry.steps])).toEqual([
      ['main', 4],
      ['explorer', 4],
    ]);
  });

  it('a parent with too little left starts no child and says why', async () => {
    const run = await runScripted({
      files,
      rules: { agents: { explorer }, verification: { gate: false }, budgets: { maxSteps: 4 } },
      script: [reply(call('delegate', { tasks: [{ agent: 'explorer', task: 'Look around.' }] })), reply(call('finish', { summary: 'done' }))],
      agentScripts: { explorer: [] },
    });
    const result = run.lines('tool').find((line) => line.name === 'delegate')?.result;
    expect(result).toContain('Agent "explorer" was not started: a child would get 1 steps, fewer than delegation.minSteps 2 (the parent has 3 steps');
    expect(run.lines('agent').map((line) => line.event)).toEqual(['refused']);
    expect(run.agentModels.explorer?.requests).toHaveLength(0);
    expect(run.output.agents).toBeUndefined();
  });

  it('runs no more children at once than delegation.maxParallel', async () => {
    const order = async (maxParallel: number) => {
      const run = await runScripted({
        files,
        rules: { agents: { explorer }, delegation: { maxParallel }, verification: { gate: false } },
        script: [
          reply(call('delegate', { tasks: [1, 2, 3].map((n) => ({ agent: 'explorer', task: `Part ${n}` })) })),
          reply(call('finish', { summary: 'done' })),
        ],
        agentScripts: { explorer: [1, 2, 3].map(() => reply(call('finish', { summary: 'ok' }))) },
      });
      let running = 0;
      let most = 0;
      for (const line of run.lines('agent')) {
        running += line.event === 'start' ? 1 : line.event === 'end' ? -1 : 0;
        most = Math.max(most, running);
      }
      return most;
    };
    expect(await order(1)).toBe(1);
    expect(await order(3)).toBe(3);
  });
});
