import { describe, expect, it } from 'vitest';
import type { AnyStateNode } from 'xstate';
import type { HarnessOptions } from '../../machines/harness-machine.js';
import { listTransitions } from '../../machines/introspection.js';
import { createHarnessMachine, rulesSchema } from '../../testing/index.js';

// The chart a set of rules builds (machines/phase-state.ts, harness-machine.ts): the states and transitions the
// rules make possible, and only those, as `rein rules graph` and coverage list them.

const machineOf = (input: unknown, options?: HarnessOptions) => createHarnessMachine(rulesSchema.parse(input), options);
const transitions = (input: unknown, prefix: string, options?: HarnessOptions) =>
  listTransitions(machineOf(input, options))
    .filter((transition) => transition.source.startsWith(prefix))
    .map((transition) => transition.key);

const turnCycle = (phase: string, { summarize = true, capped = false, gate = true } = {}) => [
  `${phase}.compact --xstate.done.actor.contextManager [contextOverflow]--> budget`,
  ...(summarize ? [`${phase}.compact --xstate.done.actor.contextManager [needsSummary]--> ${phase}.summarize`] : []),
  `${phase}.compact --xstate.done.actor.contextManager--> ${phase}.${capped ? 'checkBudget' : 'think'}`,
  `${phase}.compact --xstate.error.actor.contextManager--> failed`,
  ...(summarize
    ? [
        `${phase}.summarize --xstate.done.actor.summarizer [summaryShrank]--> ${phase}.compact`,
        `${phase}.summarize --xstate.done.actor.summarizer--> ${phase}.compact`,
        `${phase}.summarize --xstate.error.actor.summarizer--> ${phase}.compact`,
      ]
    : []),
  ...(capped ? [`${phase}.checkBudget --always [budgetSpent(maxTokens=1000, maxCostUsd=2)]--> budget`, `${phase}.checkBudget --always--> ${phase}.think`] : []),
  `${phase}.think --xstate.done.actor.model [hasToolCalls]--> ${phase}.act`,
  `${phase}.think --xstate.done.actor.model--> ${phase}.review`,
  `${phase}.think --xstate.error.actor.model [promptTooLong]--> ${phase}.compact`,
  `${phase}.think --xstate.error.actor.model--> failed`,
  `${phase}.act --xstate.done.actor.tools--> ${phase}.afterTools`,
  `${phase}.act --xstate.error.actor.tools--> failed`,
  `${phase}.afterTools --always [finishPending]--> ${phase}.gate`,
  ...(gate ? [`${phase}.afterTools --always [callsRemaining]--> ${phase}.act`] : []),
  `${phase}.afterTools --always--> ${phase}.review`,
  ...(gate
    ? [`${phase}.gate --always [testsPassedSinceLastEdit(runs=1)]--> done`, `${phase}.gate --always--> ${phase}.afterTools`]
    : [`${phase}.gate --always--> done`]),
];
const observe = (phase: string) => [
  `${phase}.observe --always [stepLimitReached(max=40)]--> step_limit`,
  `${phase}.observe --always [budgetWarningDue(steps 75% of 40)]--> ${phase}.compact`,
  `${phase}.observe --always--> ${phase}.compact`,
];
const stallReview = (phase: string, { ends = true, readLoop = 5 } = {}) => [
  ...(ends ? [`${phase}.review --always [stallPersists(maxNudges=3)]--> stalled`] : []),
  `${phase}.review --always [repeatedAction(limit=3)]--> ${phase}.route`,
  `${phase}.review --always [repeatedFailure(limit=3)]--> ${phase}.route`,
  `${phase}.review --always [alternation(limit=6)]--> ${phase}.route`,
  `${phase}.review --always [editThrash(limit=3)]--> ${phase}.route`,
  `${phase}.review --always [readLoop(limit=${readLoop})]--> ${phase}.route`,
  `${phase}.review --always [longExploration(limit=50)]--> ${phase}.route`,
  `${phase}.review --always [nothingNew(limit=6)]--> ${phase}.route`,
  `${phase}.review --always [noToolCalls(limit=3)]--> ${phase}.route`,
  `${phase}.review --always [repliedWithoutTools]--> ${phase}.route`,
  `${phase}.review --always--> ${phase}.route`,
];

describe('the chart the rules build: what can happen, and only that', () => {
  it('the default build phase: the full turn cycle, the gate, the stall review and its exits', () => {
    expect(transitions({}, 'build.')).toEqual([
      ...observe('build'),
      ...turnCycle('build'),
      ...stallReview('build'),
      'build.route --always [testRun]--> verify.settle',
      'build.route --always [finishRefused]--> verify.settle',
      'build.route --always--> build.observe',
    ]);
    // verify settles (a build exit asks for it): it judges the entering turn by its exits that can hold at once.
    expect(transitions({}, 'verify.settle')).toEqual(['verify.settle --always [testFailed]--> fix.observe', 'verify.settle --always--> verify.observe']);
    expect(transitions({}, 'build.settle')).toEqual([]);
    expect(transitions({}, 'harness')).toEqual([
      'harness --clock.restart--> (self)',
      'harness --clock.warning [timeWarningDue]--> (self)',
      'harness --clock.expired--> timeout',
    ]);
  });

  it('with the gate off finish goes straight to done, and exits that react to a refusal are left out', () => {
    expect(transitions({ verification: { gate: false }, context: { summarize: false } }, 'build.')).toEqual([
      ...observe('build'),
      ...turnCycle('build', { summarize: false, gate: false }),
      ...stallReview('build'),
      'build.route --always [testRun]--> verify.settle',
      'build.route --always--> build.observe',
    ]);
  });

  it('a token or cost cap adds the budget check before each model call', () => {
    expect(transitions({ budgets: { maxTokens: 1000, maxCostUsd: 2 } }, 'build.c')).toEqual(
      turnCycle('build', { capped: true }).filter((key) => key.startsWith('build.c')),
    );
  });

  it('the stall review: off, nudging only, or ending the run after the nudges', () => {
    expect(transitions({ stall: { enabled: false } }, 'build.review')).toEqual([
      'build.review --always [repliedWithoutTools]--> build.route',
      'build.review --always--> build.route',
    ]);
    expect(transitions({ stall: { onPersist: 'nudge' } }, 'build.review')).toEqual(stallReview('build', { ends: false }));
    expect(transitions({ stall: { onPersist: 'nudge' } }, 'stalled')).toEqual([]);
    expect(Object.keys(machineOf({ stall: { onPersist: 'nudge' } }).root.states)).not.toContain('stalled');
    expect(Object.keys(machineOf({}).root.states)).toEqual(['plan', 'build', 'verify', 'fix', 'done', 'step_limit', 'timeout', 'budget', 'stalled', 'failed']);
  });

  it('a first phase capped by maxSteps never reaches the step budget or its warning, and leaves by its step limit first', () => {
    const plan = transitions({ phases: { plan: { maxSteps: 2 } } }, 'plan.');
    expect(plan.filter((key) => key.startsWith('plan.observe'))).toEqual(['plan.observe --always--> plan.compact']);
    expect(plan.filter((key) => key.startsWith('plan.route'))).toEqual([
      'plan.route --always [phaseSteps(min=2)]--> step_limit',
      'plan.route --always [todoWritten]--> build.observe',
      'plan.route --always [editMade]--> build.observe',
      'plan.route --always [finishRefused]--> verify.settle',
      'plan.route --always--> plan.observe',
    ]);
    // Capped above the warning but below the budget: the warning stays, the step limit goes.
    const longer = transitions({ budgets: { maxSteps: 40, warnAt: 0.1 }, phases: { plan: { maxSteps: 20 } } }, 'plan.observe');
    expect(longer).toEqual(['plan.observe --always [budgetWarningDue(steps 10% of 40)]--> plan.compact', 'plan.observe --always--> plan.compact']);
    expect(transitions({ phases: { plan: { enabled: false } } }, 'plan')).toEqual([]);
    // At the edges: the warning is due after 30 of 40 steps, the step limit after 40.
    const edges = (maxSteps: number) => transitions({ phases: { plan: { maxSteps } } }, 'plan.observe').map((key) => key.replace(/^.*\[(\w+).*$/, '$1'));
    expect([30, 31, 40, 41].map(edges)).toEqual([
      ['plan.observe --always--> plan.compact'],
      ['budgetWarningDue', 'plan.observe --always--> plan.compact'],
      ['budgetWarningDue', 'plan.observe --always--> plan.compact'],
      ['stepLimitReached', 'budgetWarningDue', 'plan.observe --always--> plan.compact'],
    ]);
  });

  it('registered stall guards end the run through nudgedOut; combined exits and exits to an end state keep their parts', () => {
    const rules = {
      stall: {
        rules: [
          { guard: 'slow', limit: 2, window: 3 },
          { guard: 'readLoop', limit: 5 },
        ],
      },
      phases: {
        build: {
          exits: [
            { all: [{ guard: 'testRun' }, { not: { guard: 'editMade' } }], to: 'verify', actions: [{ action: 'mark', label: 'x' }] },
            {
              any: [
                { guard: 'gateRefusals', min: 2 },
                { guard: 'phaseSteps', min: 9 },
              ],
              to: 'stalled',
              reason: 'r',
            },
          ],
        },
      },
    };
    expect(transitions(rules, 'build.r', { guards: { slow: () => false } })).toEqual([
      'build.review --always [stallPersists(maxNudges=3)]--> stalled',
      'build.review --always [all(nudgedOut(slow, maxNudges=3), slow(limit=2, window=3))]--> stalled',
      'build.review --always [slow(limit=2, window=3)]--> build.route',
      'build.review --always [readLoop(limit=5)]--> build.route',
      'build.review --always [repliedWithoutTools]--> build.route',
      'build.review --always--> build.route',
      'build.route --always [all(testRun, not(editMade))]--> verify.observe',
      'build.route --always [any(gateRefusals(min=2), phaseSteps(min=9))]--> stalled',
      'build.route --always--> build.observe',
    ]);
    // With only a registered stall rule live, there is no built-in one for stallPersists to watch.
    expect(transitions({ stall: { rules: [{ guard: 'slow', limit: 2 }] } }, 'build.review', { guards: { slow: () => false } })).toEqual([
      'build.review --always [all(nudgedOut(slow, maxNudges=3), slow(limit=2))]--> stalled',
      'build.review --always [slow(limit=2)]--> build.route',
      'build.review --always [repliedWithoutTools]--> build.route',
      'build.review --always--> build.route',
    ]);
  });

  it('every state says what it is for, in words that follow the rules', () => {
    const descriptions = (input: unknown) => {
      const found: Record<string, string> = {};
      const visit = (node: AnyStateNode, path: string) => {
        found[path || 'harness'] = node.description ?? '';
        for (const [key, child] of Object.entries(node.states)) visit(child, path ? `${path}.${key}` : key);
      };
      visit(machineOf(input).root, '');
      return found;
    };
    const plain = descriptions({});
    for (const [state, text] of Object.entries(plain)) expect(text, state).toMatch(/^[A-Z].{10,}[.)]$/);
    const build = Object.entries(plain).filter(([state]) => state.startsWith('build.'));
    expect(new Set(build.map(([, text]) => text)).size).toBe(build.length);
    expect(plain['build.gate']).toContain('finish only after the test command');
    expect(plain['build.review']).toContain('after 3 nudges');
    expect(plain.done).toBe('The verification gate accepted finish.');
    const other = descriptions({ verification: { gate: false }, stall: { onPersist: 'nudge' } });
    expect(other['build.gate']).toBe('Verification gate off: finish is accepted at once.');
    expect(other.done).toBe('The model called finish (the verification gate is off).');
    expect(other['build.review']).toContain('a stall never ends the run');
    expect(descriptions({ stall: { enabled: false } })['build.review']).toBe('Stall detector off; a reply without a tool call gets a reminder.');
    expect(descriptions({ stall: { rules: [{ guard: 'editThrash', limit: 3 }] }, phases: { plan: { tools: ['read_file', 'finish'] } } })['plan.review']).toBe(
      "No stall rule can fire with this phase's tools; a reply without a tool call gets a reminder.",
    );
    // A phase no test can have run by refuses every finish.
    expect(descriptions({ phases: { plan: { tools: ['read_file', 'update_todo', 'finish'] } } })['plan.gate']).toContain('no test can have run');
  });
});
