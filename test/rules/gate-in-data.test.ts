import { describe, expect, it } from 'vitest';
import { createHarnessMachine, edited, type GuardRegistry, probeHarness, type Rules, ran, rulesSchema, todo } from '../../testing/index.js';

// The gate in data (verification.when): conditions combined with all/any/not, and a refusal that says which
// condition failed and why, in words, for built-in guards and for guards registered from code.

const withGate = (when: unknown): Rules => rulesSchema.parse({ verification: { when } });
const tests = { guard: 'testsPassedSinceLastEdit' };

/** A turn in fix: these results, then finish; the state reached and what the refusal said. */
function finishAfter(rules: Rules, results: Parameters<ReturnType<typeof probeHarness>['tools']>[0], guards?: GuardRegistry) {
  const probe = probeHarness(createHarnessMachine(rules, guards ? { guards } : {}), rules, { at: 'fix.think' });
  probe.reply({ calls: [...results.map((result) => ({ name: result.name, args: result.args ?? {} })), { name: 'finish', args: { summary: 'done' } }] });
  const step = probe.tools(results, { summary: 'done' });
  const note = step.notes.find((entry) => entry.kind === 'finish') as { allowed: boolean; why?: string } | undefined;
  return { state: step.state, why: note?.why, said: step.appended.at(-1)?.content };
}

describe('the gate in data', () => {
  it('todoComplete: open items are named in the refusal; all ticked, finish is accepted', () => {
    const rules = withGate({ all: [tests, { guard: 'todoComplete' }] });
    const open = finishAfter(rules, [
      todo([
        { task: 'fix mean', done: true },
        { task: 'add a test', done: false },
      ]),
      edited('a.py'),
      ran('npm test', 0),
    ]);
    expect(open).toMatchObject({ state: 'verify.compact', why: '1 todo item open: add a test' });
    expect(open.said).toContain('1 todo item open: add a test');
    expect(finishAfter(rules, [todo([{ task: 'fix mean', done: true }]), edited('a.py'), ran('npm test', 0)]).state).toBe('done');
    // The look-alike: the default gate does not look at the todo list.
    expect(finishAfter(rulesSchema.parse({}), [todo([{ task: 'add a test', done: false }]), edited('a.py'), ran('npm test', 0)]).state).toBe('done');
  });

  it('every failing part of an all is named; a passing one is not', () => {
    const rules = withGate({ all: [tests, { guard: 'todoComplete' }] });
    expect(finishAfter(rules, [todo([{ task: 'add a test', done: false }]), edited('a.py')]).why).toBe(
      'no passing test run after the last edit; 1 todo item open: add a test',
    );
  });

  it('commandPassed: the exact command must exit 0 after the last edit', () => {
    const rules = withGate({ all: [tests, { guard: 'commandPassed', command: 'npm run lint' }] });
    expect(finishAfter(rules, [edited('a.py'), ran('npm test', 0)]).why).toBe('`npm run lint` has not passed since the last edit');
    expect(finishAfter(rules, [ran('npm run lint', 0), edited('a.py'), ran('npm test', 0)]).why).toBe('`npm run lint` has not passed since the last edit');
    expect(finishAfter(rules, [ran('npm run lint', 1), edited('a.py'), ran('npm test', 0), ran('npm run lint', 1)]).state).toBe('verify.compact');
    expect(finishAfter(rules, [edited('a.py'), ran('npm test', 0), ran('  npm run lint ', 0)]).state).toBe('done');
  });

  it('filesChanged: each path (or pattern) must have been changed by an edit', () => {
    const rules = withGate({ all: [tests, { guard: 'filesChanged', paths: ['CHANGELOG.md', 'src/**/*.py'] }] });
    expect(finishAfter(rules, [edited('src/pkg/a.py'), ran('npm test', 0)]).why).toBe('not changed yet: CHANGELOG.md');
    expect(finishAfter(rules, [edited('a.py'), edited('CHANGELOG.md'), ran('npm test', 0)]).why).toBe('not changed yet: src/**/*.py');
    expect(finishAfter(rules, [edited('src/pkg/a.py'), edited('./CHANGELOG.md'), ran('npm test', 0)]).state).toBe('done');
    expect(finishAfter(rules, [edited('src/a.py'), edited('CHANGELOG.md'), ran('npm test', 0)]).state).toBe('done');
    expect(finishAfter(rules, [edited('src/a.pyc'), edited('CHANGELOG.md'), ran('npm test', 0)]).why).toBe('not changed yet: src/**/*.py');
  });

  it('any and not explain themselves', () => {
    const either = withGate({ any: [{ guard: 'commandPassed', command: 'make check' }, tests] });
    expect(finishAfter(either, [edited('a.py')]).why).toBe(
      'none of these holds: (`make check` has not passed since the last edit) or (no passing test run after the last edit)',
    );
    expect(finishAfter(either, [edited('a.py'), ran('make check', 0)]).state).toBe('done');
    const notTwice = withGate({ all: [tests, { not: { guard: 'gateRefusals', min: 1 } }] });
    const probe = probeHarness(createHarnessMachine(notTwice), notTwice, { at: 'fix.think', context: { facts: { ...probeFacts(notTwice), gateRefusals: 1 } } });
    probe.reply({ calls: [{ name: 'finish', args: { summary: 'done' } }] });
    const step = probe.tools([], { summary: 'done' });
    expect(step.notes.find((note) => note.kind === 'finish')).toMatchObject({ why: 'no passing test run yet; gateRefusals(min=1) holds' });
  });

  it('a guard from code can say why it refused; one that does not is named with its parameters', () => {
    const rules = withGate({ all: [tests, { guard: 'changelogEntry', section: 'Unreleased' }] });
    const guards: GuardRegistry = {
      changelogEntry: (view, params) =>
        view.facts.editedPaths.includes('CHANGELOG.md') ? true : { holds: false, reason: `add an entry under "${String(params.section)}" in CHANGELOG.md` },
    };
    expect(finishAfter(rules, [edited('a.py'), ran('npm test', 0)], guards).why).toBe('add an entry under "Unreleased" in CHANGELOG.md');
    expect(finishAfter(rules, [edited('CHANGELOG.md'), ran('npm test', 0)], guards).state).toBe('done');
    const silent: GuardRegistry = { changelogEntry: () => false };
    expect(finishAfter(rules, [edited('a.py'), ran('npm test', 0)], silent).why).toBe('the guard changelogEntry did not hold (section="Unreleased")');
  });

  it('a condition naming an unknown guard stops the rules before anything runs', () => {
    expect(() => createHarnessMachine(withGate({ all: [tests, { guard: 'todoComplet' }] }))).toThrow(
      /verification\.when\.all\[1\]\.guard: unknown guard "todoComplet" \(did you mean "todoComplete"\?\)/,
    );
  });
});

function probeFacts(rules: Rules) {
  return probeHarness(createHarnessMachine(rules), rules).context.facts;
}
