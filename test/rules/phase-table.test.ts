import { describe, expect, it } from 'vitest';
import { initialTransition } from 'xstate';
import { liveStallRules } from '../../machines/phase-exits.js';
import { checkRuleReferences } from '../../machines/rules-check.js';
import { enabledPhases, phaseNames } from '../../rules/schema.js';
import { createHarnessMachine, defaultRules, probeHarness, ran, rulesSchema } from '../../testing/index.js';

// The phase table (rules/phases.ts): a rules file adds phases, places them, removes built-in ones, and adds exits
// without restating the defaults. Each change is shown on a case that uses it and on a look-alike that must not change.

const review = {
  description: 'Read the diff against the task before finishing.',
  after: 'verify',
  tools: ['read_file', 'grep', 'update_todo', 'finish'],
  exits: [{ guard: 'editMade', to: 'build' }],
};

const problemsOf = (input: unknown): string[] => {
  const parsed = rulesSchema.safeParse(input);
  if (!parsed.success) return parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  try {
    checkRuleReferences(parsed.data);
    return [];
  } catch (error) {
    return (error as Error).message.split('\n');
  }
};

describe('the phase order', () => {
  it('the default table is plan, build, verify, fix; the run starts in plan', () => {
    const rules = defaultRules();
    expect(phaseNames(rules)).toEqual(['plan', 'build', 'verify', 'fix']);
    const [start] = initialTransition(createHarnessMachine(rules), { task: 't', testCmd: 'npm test' });
    expect(start.value).toEqual({ plan: 'compact' });
  });

  it('an added phase goes where `after` or `before` puts it, or last', () => {
    expect(phaseNames(rulesSchema.parse({ phases: { review } }))).toEqual(['plan', 'build', 'verify', 'review', 'fix']);
    expect(phaseNames(rulesSchema.parse({ phases: { review: { ...review, after: undefined, before: 'build' } } }))).toEqual([
      'plan',
      'review',
      'build',
      'verify',
      'fix',
    ]);
    expect(phaseNames(rulesSchema.parse({ phases: { review: { ...review, after: undefined } } }))).toEqual(['plan', 'build', 'verify', 'fix', 'review']);
  });

  it('the first enabled phase in the order is where a run starts: an added phase before plan, or build once plan is off', () => {
    const triage = { description: 'Decide whether the task is a bug or a feature.', before: 'plan', exits: [{ guard: 'always', to: 'plan' }] };
    const rules = rulesSchema.parse({ phases: { triage } });
    expect(enabledPhases(rules)[0]).toBe('triage');
    const [start] = initialTransition(createHarnessMachine(rules), { task: 't', testCmd: 'npm test' });
    expect(start.value).toEqual({ triage: 'compact' });
    expect(start.context.phase).toBe('triage');
    const noPlan = rulesSchema.parse({ phases: { plan: { enabled: false } } });
    expect(initialTransition(createHarnessMachine(noPlan), { task: 't', testCmd: 'npm test' })[0].value).toEqual({ build: 'compact' });
  });

  it('parsing the parsed table again gives the same table (a resumed run and the visualizer re-parse it)', () => {
    const once = rulesSchema.parse({ phases: { review, '*': { exitsAppend: [{ guard: 'gateRefusals', min: 3, to: 'failed' }] } } });
    const twice = rulesSchema.parse(JSON.parse(JSON.stringify(once)));
    expect(twice.phases).toEqual(once.phases);
    expect(phaseNames(twice)).toEqual(phaseNames(once));
  });
});

describe('an added phase in the statechart', () => {
  const rules = rulesSchema.parse({
    phases: { review, verify: { exitsAppend: [{ guard: 'testsPassedSinceLastEdit', to: 'review' }] } },
  });
  const machine = createHarnessMachine(rules);

  it('is a state with the same turn cycle as a built-in phase, its description and its own tools', () => {
    const states = machine.root.states;
    expect(Object.keys(states)).toContain('review');
    expect(states.review!.description).toBe(review.description);
    expect(Object.keys(states.review!.states)).toEqual(Object.keys(states.fix!.states).filter((name) => name !== 'settle'));
  });

  it('an exit leads into it, and its own exits lead out', () => {
    const probe = probeHarness(machine, rules, { at: 'verify.think' });
    probe.reply({ calls: [{ name: 'run', args: { command: 'npm test' } }] });
    const entered = probe.tools([ran('npm test', 0, 'ok')]);
    expect(entered.state).toBe('review.compact');
    expect(entered.context.phase).toBe('review');
    // The look-alike: a failing run still goes to fix, as before.
    const failing = probeHarness(machine, rules, { at: 'verify.think' });
    failing.reply({ calls: [{ name: 'run', args: { command: 'npm test' } }] });
    expect(failing.tools([ran('npm test', 1, 'FAIL')]).state).toBe('fix.compact');
  });
});

describe('extending a phase without restating it', () => {
  const gateOut = { guard: 'gateRefusals', min: 3, to: 'failed', reason: 'Three refused finishes.' };

  it('exitsAppend and exitsPrepend add to the default exits, in that place; exits replaces them', () => {
    const base = defaultRules().phases.build!.exits;
    expect(rulesSchema.parse({ phases: { build: { exitsAppend: [gateOut] } } }).phases.build!.exits).toEqual([...base, gateOut]);
    expect(rulesSchema.parse({ phases: { build: { exitsPrepend: [gateOut] } } }).phases.build!.exits).toEqual([gateOut, ...base]);
    expect(rulesSchema.parse({ phases: { build: { exits: [gateOut] } } }).phases.build!.exits).toEqual([gateOut]);
  });

  it('"*" adds exits to every enabled phase and to no disabled one', () => {
    const rules = rulesSchema.parse({ phases: { plan: { enabled: false }, '*': { exitsPrepend: [gateOut] } } });
    for (const phase of ['build', 'verify', 'fix']) expect(rules.phases[phase]!.exits[0]).toEqual(gateOut);
    expect(rules.phases.plan!.exits).toEqual(defaultRules().phases.plan!.exits);
    expect(Object.keys(rules.phases)).not.toContain('*');
  });

  it('failed is an exit target with its own reason', () => {
    const rules = rulesSchema.parse({ phases: { '*': { exitsPrepend: [gateOut] } } });
    const probe = probeHarness(createHarnessMachine(rules), rules, { at: 'build.think', context: { facts: { ...defaultFacts(rules), gateRefusals: 2 } } });
    probe.reply({ calls: [{ name: 'finish', args: { summary: 'done' } }] });
    const step = probe.tools([], { summary: 'done' });
    expect(step.state).toBe('failed');
    expect(step.context.status).toBe('failed');
    expect(step.context.reason).toBe('Three refused finishes.');
  });
});

describe('a stall rule switched off in one phase', () => {
  it('"off" (or 0) leaves the rule out of that phase\'s stall review; the other phases keep it', () => {
    for (const off of ['off', 0]) {
      const rules = rulesSchema.parse({ phases: { fix: { stallLimits: { repeatedFailure: off } } } });
      const guardsOf = (phase: string) => JSON.stringify(createHarnessMachine(rules).root.states[phase]!.states.review!.always?.map((edge) => edge.guard));
      expect(liveStallRules('fix', rules).map((rule) => rule.guard)).not.toContain('repeatedFailure');
      expect(liveStallRules('verify', rules).map((rule) => rule.guard)).toContain('repeatedFailure');
      expect(guardsOf('fix')).not.toContain('repeatedFailure');
      expect(guardsOf('verify')).toContain('repeatedFailure');
    }
    const limited = rulesSchema.parse({ phases: { fix: { stallLimits: { repeatedFailure: 2 } } } });
    expect(liveStallRules('fix', limited).find((rule) => rule.guard === 'repeatedFailure')?.limit).toBe(2);
  });
});

describe('what a bad phase table says', () => {
  it('an added phase needs a description; after/before name a phase; names cannot be final states', () => {
    expect(problemsOf({ phases: { review: { after: 'verify' } } })).toEqual(['phases.review.description: an added phase needs a description']);
    expect(problemsOf({ phases: { review: { ...review, after: 'verfy' } } })).toEqual([
      'phases.review.after: expected another phase of these rules (plan, build, verify, fix), found "verfy"',
    ]);
    expect(problemsOf({ phases: { review: { ...review, before: 'fix' } } })).toEqual(['phases.review.before: expected only one of "after" and "before"']);
    expect(problemsOf({ phases: { failed: { description: 'x' } } })[0]).toMatch(/^phases\.failed: expected a phase name other than a final state/);
  });

  it('an exit to a phase that does not exist is named with a near miss', () => {
    expect(problemsOf({ phases: { review, verify: { exitsAppend: [{ guard: 'testPassed', to: 'reveiw' }] } } })).toEqual([
      'phases.verify.exits[2].to: unknown target "reveiw" (did you mean "review"?); phases: plan, build, verify, review, fix; final states: stalled, step_limit, budget, timeout, failed',
    ]);
  });
});

function defaultFacts(rules: ReturnType<typeof defaultRules>) {
  return probeHarness(createHarnessMachine(rules), rules).context.facts;
}
