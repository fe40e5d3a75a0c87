import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { budgetCapsOf, completionAllowance, promptTokensForCaps } from '../../machines/budgets.js';
import { type BudgetAmounts, type BudgetUse, carveBudget, heldBy, NO_BUDGET_USE } from '../../rules/agents/carve.js';
import { childRules } from '../../rules/agents/child-rules.js';
import { agentSchema } from '../../rules/agents/schema.js';
import { checkCoverage, createHarnessMachine, probeHarness, rulesSchema, searched } from '../../testing/index.js';

/** The delegate call's result, as the tool runner hands it back. */
const report = { name: 'delegate', outcome: { content: 'Agent "explorer" finished', ok: true, effect: { kind: 'none' as const } } };
const usage = (tokens: number, costUsd = 0) => ({ calls: 1, promptTokens: tokens, completionTokens: 0, cachedTokens: 0, costUsd });

describe('a parent’s guards see its whole tree: children are charged as they spend', () => {
  const rules = rulesSchema.parse({ budgets: { maxSteps: 10 }, agents: { explorer: { description: 'looks' } } });
  const machine = createHarnessMachine(rules);

  it('has the charge transition only where the rules declare agents, and every transition of that chart has a witness', async () => {
    expect(JSON.stringify(createHarnessMachine(rulesSchema.parse({})).toJSON())).not.toContain('delegation.charge');
    const delegating = rulesSchema.parse({ agents: { explorer: { description: 'looks' } } });
    const chart = createHarnessMachine(delegating);
    expect(JSON.stringify(chart.toJSON())).toContain('delegation.charge');
    expect((await checkCoverage(chart, delegating)).problems).toEqual([]);
  }, 180_000);

  it('ends the run at its step cap when its children took the rest', () => {
    const probe = probeHarness(machine, rules, { at: 'build.think' });
    probe.reply({ calls: [{ name: 'delegate', args: {} }] });
    probe.send({ type: 'delegation.charge', child: '1:0:0', agent: 'explorer', steps: 5, usage: usage(500) });
    probe.send({ type: 'delegation.charge', child: '1:0:1', agent: 'explorer', steps: 4, usage: usage(400) });
    expect(probe.tools([report]).state).toBe('step_limit');
  });

  it('goes on with one step left', () => {
    const probe = probeHarness(machine, rules, { at: 'build.think' });
    probe.reply({ calls: [{ name: 'delegate', args: {} }] });
    probe.send({ type: 'delegation.charge', child: '1:0:0', agent: 'explorer', steps: 8, usage: usage(500) });
    expect(probe.tools([report]).state).toBe('build.compact');
  });

  it('never charges a child twice, whatever order its totals arrive in (generated sequences)', () => {
    const charge = fc.record({ child: fc.integer({ min: 0, max: 2 }), steps: fc.integer({ min: 0, max: 6 }), tokens: fc.integer({ min: 0, max: 5000 }) });
    fc.assert(
      fc.property(fc.array(charge, { maxLength: 25 }), (charges) => {
        const probe = probeHarness(machine, rules, { at: 'build.think' });
        probe.reply({ calls: [{ name: 'delegate', args: {} }] }, { promptTokens: 100, completionTokens: 10 });
        const most = new Map<number, { steps: number; tokens: number }>();
        for (const entry of charges) {
          probe.send({ type: 'delegation.charge', child: `1:0:${entry.child}`, agent: `a${entry.child}`, steps: entry.steps, usage: usage(entry.tokens) });
          const seen = most.get(entry.child) ?? { steps: 0, tokens: 0 };
          most.set(entry.child, { steps: Math.max(seen.steps, entry.steps), tokens: Math.max(seen.tokens, entry.tokens) });
        }
        const children = [...most.values()];
        const steps = children.reduce((sum, child) => sum + child.steps, 0);
        const tokens = children.reduce((sum, child) => sum + child.tokens, 0);
        expect(probe.context.usage.promptTokens).toBe(100 + tokens);
        expect(probe.context.delegated?.steps ?? 0).toBe(steps);
        // The parent's own step plus its children's: at the cap it ends, below it goes on.
        expect(probe.tools([report]).state).toBe(1 + steps >= 10 ? 'step_limit' : 'build.compact');
      }),
      { numRuns: 200 },
    );
  });
});

describe('caps carved from what the parent has left', () => {
  const parentCaps: BudgetAmounts = { steps: 40, seconds: 900, tokens: 200_000, costUsd: 1 };
  const minimum = { minSteps: 2, minTokens: 2048 };
  const request = fc.record({
    share: fc.double({ min: 0.05, max: 1, noNaN: true }),
    maxSteps: fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }),
    maxTokens: fc.option(fc.integer({ min: 1, max: 300_000 }), { nil: undefined }),
  });
  const op = fc.oneof(
    fc.record({ kind: fc.constant('start' as const), request }),
    fc.record({ kind: fc.constant('spend' as const), which: fc.nat(), share: fc.double({ min: 0, max: 1, noNaN: true }) }),
    fc.record({ kind: fc.constant('end' as const), which: fc.nat() }),
    fc.record({ kind: fc.constant('own' as const), tokens: fc.integer({ min: 0, max: 20_000 }) }),
  );

  it('the whole tree never passes the parent’s caps, however children start, spend and end (generated sequences)', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        let own: BudgetUse = { ...NO_BUDGET_USE, steps: 1 };
        const running: Array<{ caps: BudgetAmounts; used: BudgetUse }> = [];
        let ended: BudgetUse = NO_BUDGET_USE;
        const total = (unit: keyof BudgetUse) => own[unit] + ended[unit] + running.reduce((sum, child) => sum + child.used[unit], 0);
        for (const step of ops) {
          if (step.kind === 'start') {
            const held = running.reduce((sum, child) => add(sum, heldBy(child.caps, child.used)), NO_BUDGET_USE);
            const spent = { steps: total('steps'), seconds: 0, tokens: total('tokens'), costUsd: total('costUsd') };
            const carved = carveBudget({ caps: parentCaps, spent, held, request: step.request, minimum });
            const left = parentCaps.steps - spent.steps - held.steps;
            const steps = Math.min(step.request.maxSteps ?? Number.POSITIVE_INFINITY, Math.floor(left * step.request.share));
            const leftTokens = parentCaps.tokens! - spent.tokens - held.tokens;
            const tokens = Math.min(step.request.maxTokens ?? Number.POSITIVE_INFINITY, Math.floor(leftTokens * step.request.share));
            // min(requested, left × share) in each unit, started only when both reach the minimum.
            const cost = Math.floor((parentCaps.costUsd! - spent.costUsd - held.costUsd) * step.request.share * 1e6) / 1e6;
            expect(carved.ok).toBe(steps >= minimum.minSteps && tokens >= minimum.minTokens && cost > 0);
            if (carved.ok) {
              expect(carved.caps).toMatchObject({ steps, tokens, costUsd: cost });
              running.push({ caps: carved.caps, used: NO_BUDGET_USE });
            }
          } else if (step.kind === 'spend' && running.length > 0) {
            // A child spends at most what its own guards let it: its caps.
            const child = running[step.which % running.length]!;
            child.used = {
              steps: child.used.steps + Math.floor((child.caps.steps - child.used.steps) * step.share),
              seconds: 0,
              tokens: child.used.tokens + Math.floor((child.caps.tokens! - child.used.tokens) * step.share),
              costUsd: child.used.costUsd,
            };
          } else if (step.kind === 'end' && running.length > 0) {
            const [child] = running.splice(step.which % running.length, 1);
            ended = add(ended, child!.used);
          } else if (step.kind === 'own' && running.length === 0) {
            // The parent spends only between its delegate calls (it waits in one while children run), within its own cap.
            own = {
              ...own,
              steps: Math.min(own.steps + 1, parentCaps.steps - total('steps') + own.steps),
              tokens: Math.min(own.tokens + step.tokens, parentCaps.tokens! - total('tokens') + own.tokens),
            };
          }
          // Even if every running child spent its whole cap now, the tree stays within the parent's caps.
          const worst = (unit: 'steps' | 'tokens') => total(unit) + running.reduce((sum, child) => sum + (child.caps[unit]! - child.used[unit]), 0);
          expect(worst('steps')).toBeLessThanOrEqual(parentCaps.steps);
          expect(worst('tokens')).toBeLessThanOrEqual(parentCaps.tokens!);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a parent out of budget starts nothing', () => {
    const spent = { steps: 39, seconds: 10, tokens: 0, costUsd: 0 };
    expect(carveBudget({ caps: parentCaps, spent, held: NO_BUDGET_USE, request: { share: 1 }, minimum }).ok).toBe(false);
    const poor = { steps: 1, seconds: 10, tokens: 199_000, costUsd: 0 };
    const carved = carveBudget({ caps: parentCaps, spent: poor, held: NO_BUDGET_USE, request: { share: 1 }, minimum });
    expect(carved.ok ? carved.caps : carved.reason).toBe(
      'a child would get 1000 tokens, fewer than delegation.minTokens 2048 (the parent has 39 steps, 890 s, 1,000 tokens, $1.0000 left)',
    );
  });
});

function add(a: BudgetUse, b: BudgetUse): BudgetUse {
  return { steps: a.steps + b.steps, seconds: a.seconds + b.seconds, tokens: a.tokens + b.tokens, costUsd: a.costUsd + b.costUsd };
}

describe('a child’s own guards hold its caps', () => {
  const parent = rulesSchema.parse({ model: { maxCompletionTokens: 2000 } });
  const agent = agentSchema.parse({ description: 'looks', readOnly: true });
  const caps = fc.record({ steps: fc.integer({ min: 2, max: 12 }), seconds: fc.constant(600), tokens: fc.integer({ min: 2048, max: 40_000 }) });
  const turn = fc.record({
    view: fc.integer({ min: 50, max: 4000 }),
    promptShare: fc.double({ min: 0.3, max: 1, noNaN: true }),
    answer: fc.double({ min: 0, max: 1, noNaN: true }),
  });

  it('no child takes a step or a token past its caps, whatever its model sends (generated sequences)', () => {
    fc.assert(
      fc.property(caps, fc.array(turn, { minLength: 1, maxLength: 30 }), (given, turns) => {
        const rules = childRules({ parent, agent, caps: given, depthLeft: 0 });
        const probe = probeHarness(createHarnessMachine(rules), rules, { at: 'explore.compact' });
        let index = 0;
        while (probe.state.endsWith('.compact')) {
          const next = turns[index % turns.length]!;
          index += 1;
          probe.contextReady({ tokens: next.view });
          if (!probe.state.endsWith('.think')) break;
          // The model is asked for at most the allowance; an honest provider counts the prompt within rein's estimate.
          const allowance = completionAllowance(probe.context, budgetCapsOf(rules), probe.context.price);
          const prompt = Math.floor(promptTokensForCaps(probe.context) * next.promptShare);
          probe.reply(
            { calls: [{ name: 'grep', args: { pattern: `p${index}` } }] },
            { promptTokens: prompt, completionTokens: Math.floor(allowance * next.answer) },
          );
          if (probe.state.endsWith('.act')) probe.tools([searched(`p${index}`)]);
        }
        const used = probe.context.usage;
        expect(probe.context.step).toBeLessThanOrEqual(given.steps);
        expect(used.promptTokens + used.completionTokens).toBeLessThanOrEqual(given.tokens);
        expect(['step_limit', 'budget', 'stalled']).toContain(probe.state);
      }),
      { numRuns: 150 },
    );
  });
});
