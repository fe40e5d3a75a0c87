import { describe, expect, it } from 'vitest';
import { childRules, childTools } from '../../../rules/agents/child-rules.js';
import { agentSchema } from '../../../rules/agents/schema.js';
import { enabledPhases, rulesSchema } from '../../../rules/schema.js';

const caps = { steps: 8, seconds: 120 };

describe('a child agent’s rules', () => {
  const parent = rulesSchema.parse({
    permissions: { deny: ['curl'], network: false },
    approvals: { ask: [{ tool: 'run' }] },
    model: { prices: { m: { input: 1, cachedInput: 0.1, output: 4 } } },
    budgets: { maxTokens: 100_000 },
  });

  it('parses the parent’s own rules back unchanged, so a child with no rules of its own has the parent’s chart', () => {
    const child = childRules({ parent, agent: agentSchema.parse({ description: 'd' }), caps, depthLeft: 0 });
    expect(child.phases).toEqual(parent.phases);
    expect(child.stall).toEqual(parent.stall);
    expect(child.verification).toEqual(parent.verification);
  });

  it('takes its caps as its budgets and one level less of delegation', () => {
    const child = childRules({ parent, agent: agentSchema.parse({ description: 'd' }), caps: { steps: 5, seconds: 60, tokens: 9000 }, depthLeft: 0 });
    expect(child.budgets).toMatchObject({ maxSteps: 5, maxSeconds: 60, maxTokens: 9000 });
    expect(child.budgets.maxCostUsd).toBeUndefined();
    expect(child.delegation.maxDepth).toBe(0);
  });

  it('keeps the parent’s permissions, approvals, hooks and prices whatever the agent asks', () => {
    const agent = agentSchema.parse({
      description: 'd',
      rules: { model: { prices: { m: { input: 0, cachedInput: 0, output: 0 } }, temperature: 0.2 } },
    });
    const child = childRules({ parent, agent, caps, depthLeft: 0 });
    expect(child.permissions).toEqual(parent.permissions);
    expect(child.approvals).toEqual(parent.approvals);
    expect(child.hooks).toEqual(parent.hooks);
    expect(child.model.prices).toEqual(parent.model.prices);
    expect(child.model.temperature).toBe(0.2);
  });

  it('rejects an agent that tries to set what it may touch', () => {
    expect(agentSchema.safeParse({ description: 'd', rules: { permissions: { network: true } } }).success).toBe(false);
    expect(agentSchema.safeParse({ description: 'd', rules: { tools: { enabled: ['run'] } } }).success).toBe(false);
  });

  it('gives a read-only agent one phase without a gate and only tools that change nothing', () => {
    const child = childRules({ parent, agent: agentSchema.parse({ description: 'd', readOnly: true, tools: ['*'] }), caps, depthLeft: 0 });
    expect(enabledPhases(child)).toEqual(['explore']);
    expect(child.verification.gate).toBe(false);
    expect(child.tools.enabled).toEqual(['read_file', 'grep', 'finish']);
  });

  it('never gives a tool the parent lacks, never the todo file, always finish', () => {
    const narrow = rulesSchema.parse({ tools: { enabled: ['read_file', 'run', 'update_todo', 'finish'] } });
    expect(childTools(narrow, { tools: ['edit_file', 'run', 'update_todo'], readOnly: false })).toEqual(['run', 'finish']);
    expect(childTools(narrow, { tools: undefined, readOnly: false })).toEqual(['read_file', 'run', 'finish']);
  });
});

describe('agents in a rules file nobody trusted', () => {
  it('are refused: an agent is a prompt, a model and an endpoint', async () => {
    const { looseningsOf } = await import('../../../rules/trust/index.js');
    const base = rulesSchema.parse({});
    const withAgent = rulesSchema.parse({ agents: { helper: { description: 'd', baseURL: 'https://elsewhere.example/v1' } } });
    expect(looseningsOf(base, withAgent)).toEqual([expect.stringMatching(/^agents, delegation: agents$/)]);
    expect(looseningsOf(base, rulesSchema.parse({ delegation: { maxDepth: 3 } }))).toEqual(['agents, delegation: delegation']);
  });
});
