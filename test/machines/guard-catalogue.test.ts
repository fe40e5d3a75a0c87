import { describe, expect, it } from 'vitest';
import { BUILT_IN_GUARDS, type BuiltInGuardName, GUARD_CATALOGUE, guardParams } from '../../machines/guards/catalogue.js';
import type { GuardView } from '../../machines/guards/guard-view.js';
import { guardCanHold, isPhaseRelative } from '../../machines/phase-exits.js';
import { checkRuleReferences } from '../../machines/rules-check.js';
import { defaultRules, type Phase, type Rules, rulesSchema } from '../../rules/schema.js';

// What `rein rules guards` and the chart say about each built-in guard must be true of the guard itself.

const names = Object.keys(BUILT_IN_GUARDS) as BuiltInGuardName[];

/** A guard view where every leaf is "on" (true, or a large count), recording which leaves a guard reads. */
function recordingView(seen: Set<string>, value: (path: string) => unknown = () => 1000): GuardView {
  const node = (path: string): unknown =>
    new Proxy(
      {},
      {
        get: (_target, key) => {
          if (typeof key !== 'string') return undefined;
          const at = path ? `${path}.${key}` : key;
          // Containers: the guard view's objects and the per-rule stall and per-check records.
          if (['turn', 'facts', 'stall', 'facts.checks'].includes(at) || /^stall\.\w+$/.test(at) || /^facts\.checks\.\w+$/.test(at)) return node(at);
          seen.add(at.replace(/^facts\.checks\.\w+\..*$/, 'facts.checks'));
          // Lists (the todo list, the changed files, the passed commands) are empty: every guard reading one still reads it.
          return listLeaves.has(at) ? [] : value(at);
        },
      },
    );
  return node('') as GuardView;
}
const booleanLeaves = new Set([
  'turn.todoWritten',
  'turn.edited',
  'turn.testRan',
  'turn.finishRefused',
  'facts.editedInPhase',
  'facts.editedSinceTest',
  'facts.testedSinceEdit',
]);

const listLeaves = new Set(['facts.todo', 'facts.editedPaths', 'facts.commandsPassedSinceEdit']);

/** Parameters that make every part of a guard look at the view: its example's, and a named check for the gate. */
function paramSets(name: BuiltInGuardName): Record<string, unknown>[] {
  const { guard: _guard, to: _to, settle: _settle, reason: _reason, ...example } = BUILT_IN_GUARDS[name].example;
  return [guardParams(name, example), ...('checks' in BUILT_IN_GUARDS[name].params.shape ? [guardParams(name, { ...example, checks: { lint: 1 } })] : [])];
}

describe('the guard catalogue describes each guard truly (machines/guards/catalogue.ts)', () => {
  it('"reads" lists exactly the guard-view fields the guard reads', () => {
    for (const name of names) {
      const spec = BUILT_IN_GUARDS[name];
      const seen = new Set<string>();
      for (const params of paramSets(name)) {
        // Once with every boolean on (so && reads both sides), once with the view's tri-state "last run" answers.
        spec.test(
          recordingView(seen, (path) => (booleanLeaves.has(path) ? true : path === 'turn.testPassed' ? false : 1000)),
          params as never,
        );
        spec.test(
          recordingView(seen, (path) => (booleanLeaves.has(path) ? true : path === 'turn.testPassed' ? true : 1000)),
          params as never,
        );
      }
      expect([...seen].sort(), name).toEqual([...spec.reads].sort());
    }
  });

  it('a counting guard counts what it reads, holds from its threshold on, and the threshold is one of its parameters', () => {
    const counting = names.filter((name) => BUILT_IN_GUARDS[name].counts);
    expect(counting.sort()).toEqual(
      [
        'todoProgress',
        'phaseSteps',
        'phaseTestRuns',
        'failedRunsInRow',
        'gateRefusals',
        'testsPassedSinceLastEdit',
        ...Object.keys(GUARD_CATALOGUE.stall),
      ].sort(),
    );
    for (const name of counting) {
      const spec = BUILT_IN_GUARDS[name];
      const counts = spec.counts!;
      expect(Object.keys(spec.params.shape), name).toContain(counts.param);
      const field = spec.reads[0]!;
      const at = (count: number) => recordingView(new Set(), (path) => (path === field ? count : path.endsWith('.count') ? 0 : 999));
      expect(counts.read(at(7)), name).toBe(7);
      const params = (threshold: number) => guardParams(name, { ...paramSets(name)[0], [counts.param]: threshold }) as never;
      expect([spec.test(at(4), params(5)), spec.test(at(5), params(5)), spec.test(at(6), params(5))], name).toEqual([false, true, true]);
    }
  });

  it("each guard's needs decide in which phases its exits can hold", () => {
    const phaseWith = (tools: string[], change: Partial<Rules['verification']> = {}) => {
      const rules = defaultRules();
      return {
        ...rules,
        verification: { ...rules.verification, ...change },
        phases: { ...rules.phases, build: { ...rules.phases.build, tools: [...tools, 'finish'] } },
      } as Rules;
    };
    const scenarios: Record<string, Rules> = {
      bare: phaseWith([]),
      todo: phaseWith(['update_todo']),
      run: phaseWith(['run']),
      edit: phaseWith(['edit_file']),
      shellEdits: phaseWith(['run'], { commandsCountAsEdits: true }),
      read: phaseWith(['read_file']),
      grep: phaseWith(['grep']),
      gateOff: { ...phaseWith(['update_todo', 'run', 'edit_file', 'read_file', 'grep']), verification: { ...defaultRules().verification, gate: false } },
    };
    const holdsIn = (name: string) =>
      Object.entries(scenarios)
        .filter(([, rules]) => guardCanHold(name, 'build' as Phase, rules))
        .map(([scenario]) => scenario);
    const everywhere = Object.keys(scenarios);
    const table = Object.fromEntries(names.map((name) => [name, holdsIn(name)]));
    expect(table).toEqual({
      todoWritten: ['todo', 'gateOff'],
      editMade: ['edit', 'shellEdits', 'gateOff'],
      testRun: ['run', 'shellEdits', 'gateOff'],
      testFailed: ['run', 'shellEdits', 'gateOff'],
      testPassed: ['run', 'shellEdits', 'gateOff'],
      finishRefused: everywhere.filter((scenario) => scenario !== 'gateOff'),
      editedSinceTest: ['edit', 'shellEdits', 'gateOff'],
      testedAfterEdit: ['edit', 'shellEdits', 'gateOff'],
      todoProgress: ['todo', 'gateOff'],
      phaseSteps: everywhere,
      phaseTestRuns: ['run', 'shellEdits', 'gateOff'],
      failedRunsInRow: ['run', 'shellEdits', 'gateOff'],
      gateRefusals: everywhere.filter((scenario) => scenario !== 'gateOff'),
      always: everywhere,
      testsPassedSinceLastEdit: ['run', 'shellEdits', 'gateOff'],
      // The todo list is the run's: written in any phase, judged in this one.
      todoComplete: everywhere,
      filesChanged: ['edit', 'gateOff'],
      commandPassed: ['run', 'shellEdits', 'gateOff'],
      // A review comes from a delegate call, which the rules' agents offer in any phase.
      agentApproved: everywhere,
      repeatedAction: everywhere,
      repeatedFailure: everywhere,
      alternation: everywhere,
      editThrash: ['edit', 'gateOff'],
      readLoop: ['read', 'grep', 'gateOff'],
      longExploration: ['read', 'grep', 'gateOff'],
      nothingNew: everywhere,
      noToolCalls: everywhere,
    });
    // Guards that only look at the current phase cannot hold on the turn that entered it.
    expect(names.filter((name) => isPhaseRelative({ guard: name }))).toEqual(['editedSinceTest', 'testedAfterEdit', 'phaseSteps', 'phaseTestRuns']);
  });

  it('each example is a valid exit naming its own guard; where a default exit uses the guard, the example is that exit', () => {
    const defaults = defaultRules();
    const defaultExits = Object.values(defaults.phases).flatMap((phase) => phase.exits);
    for (const name of names) {
      const example = BUILT_IN_GUARDS[name].example;
      expect(example.guard, name).toBe(name);
      // The agent an agentApproved example names is one the rules declare.
      const agents = typeof example.agent === 'string' ? { agents: { [example.agent]: { description: 'Reviews the change.', readOnly: true } } } : {};
      const rules = rulesSchema.parse({ ...agents, phases: { build: { exits: [example, { guard: 'testRun', to: 'verify', settle: true }] } } });
      expect(() => checkRuleReferences(rules), name).not.toThrow();
      const same = defaultExits.find((exit) => exit.guard === name && exit.to === example.to);
      if (same) expect(example, name).toEqual(same);
      // An exit that ends the run says why.
      if (!['plan', 'build', 'verify', 'fix'].includes(String(example.to))) expect(String(example.reason ?? ''), name).not.toBe('');
    }
    expect(names.filter((name) => defaultExits.some((exit) => exit.guard === name && exit.to === BUILT_IN_GUARDS[name].example.to)).length).toBe(7);
  });

  it('each summary is a sentence that names the parameters it compares', () => {
    for (const name of names) {
      const { summary, params } = BUILT_IN_GUARDS[name];
      expect(summary, name).toMatch(/^[A-Z].*\.$/);
      for (const param of Object.keys(params.shape).filter((key) => key !== 'checks')) expect(summary, name).toContain(`\`${param}\``);
    }
    for (const rule of Object.keys(GUARD_CATALOGUE.stall)) expect(BUILT_IN_GUARDS[rule as BuiltInGuardName].summary).toContain(`stall counter of ${rule}`);
    expect(new Set(names.map((name) => BUILT_IN_GUARDS[name].summary)).size).toBe(names.length);
  });

  it('every parameter has a description with no word left out, and a threshold is a positive whole number', () => {
    for (const name of names) {
      for (const [param, schema] of Object.entries(BUILT_IN_GUARDS[name].params.shape)) {
        const description = (schema as { description?: string }).description ?? '';
        expect(description, `${name}.${param}`).toMatch(/^[A-Z]\S*( \S+)+$/);
      }
      const counts = BUILT_IN_GUARDS[name].counts;
      if (counts) {
        for (const bad of [0, -1, 1.5]) expect(BUILT_IN_GUARDS[name].params.safeParse({ [counts.param]: bad }).success, `${name} ${bad}`).toBe(false);
      }
    }
    // Guards without parameters take none.
    expect(BUILT_IN_GUARDS.testRun.params.safeParse({ min: 1 }).success).toBe(false);
  });
});
