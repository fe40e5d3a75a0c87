import { describe, expect, it } from 'vitest';
import { UsageError } from '../../lib/errors.js';
import { call, createHarnessMachine, edited, probeHarness, type Rules, read, reply, rulesSchema } from '../../testing/index.js';

// Guards and rule actions a rules module registers, as the machine runs them (machines/harness-machine.ts,
// machines/harness-setup.ts): they read the guard view, their failures are named or traced, and a replaced
// built-in runs under its "(overridden)" name.

const rulesWith = (input: unknown): Rules => rulesSchema.parse(input);

describe('guards and actions registered from a rules module, in the machine', () => {
  it('a registered guard decides an exit with the parameters its rule gives it', () => {
    const rules = rulesWith({ phases: { build: { exits: [{ guard: 'stepsAtLeast', times: 2, to: 'verify' }] } } });
    const seen: unknown[] = [];
    const machine = createHarnessMachine(rules, {
      guards: {
        stepsAtLeast: (view, params) => {
          seen.push(params);
          return view.step >= Number(params.times);
        },
      },
    });
    const probe = probeHarness(machine, rules, { at: 'build.think' });
    expect(probe.reply({ content: 'looking' }).state).toBe('build.compact');
    probe.contextReady();
    expect(probe.reply({ content: 'still looking' }).state).toBe('verify.compact');
    expect(seen[0]).toEqual({ times: 2 });
  });

  it('a registered guard that throws stops the run with its name in the message', () => {
    const rules = rulesWith({ phases: { build: { exits: [{ guard: 'boom', to: 'verify' }] } } });
    const failure = new Error('kaput');
    const machine = createHarnessMachine(rules, {
      guards: {
        boom: () => {
          throw failure;
        },
      },
    });
    const probe = probeHarness(machine, rules, { at: 'build.think' });
    const error = (() => {
      try {
        probe.reply({ content: 'hi' });
      } catch (caught) {
        return caught as Error;
      }
      return null;
    })();
    expect(error?.message).toBe('guard "boom" threw: kaput');
    expect(error?.cause).toBe(failure);
  });

  it('a registered action queues its notices and writes its trace line; a bad one is traced, not obeyed', () => {
    const rules = rulesWith({
      phases: { build: { onEnter: [{ action: 'remind', every: 2 }, { action: 'weird' }, { action: 'broken' }, { action: 'quiet' }, { action: 'plain' }] } },
    });
    const machine = createHarnessMachine(rules, {
      actions: {
        remind: (view, params) => ({ notices: [`Step ${view.step}, ${Object.keys(params).length} params`], trace: { open: 2 } }),
        weird: () => ({ notices: 'not-an-array' as unknown as string[] }),
        broken: () => {
          throw new Error('boom');
        },
        quiet: () => undefined,
        plain: () => ({ notices: ['plain'] }),
      },
    });
    const probe = probeHarness(machine, rules, { at: 'plan.think' });
    const step = probe.reply(reply(call('edit_file', { path: 'a.js', old: 'a', new: 'b' })));
    const entered = probe.tools([edited('a.js')]);
    expect(step.state).toBe('plan.act');
    expect(entered.state).toBe('build.compact');
    const notes = entered.notes.filter((note) => note.kind === 'rule_action');
    expect(notes).toEqual([
      { kind: 'rule_action', action: 'remind', step: 1, open: 2, notices: ['Step 1, 1 params'] },
      { kind: 'rule_action', action: 'weird', step: 1, problem: 'notices must be an array of strings; ignored' },
      { kind: 'rule_action', action: 'broken', step: 1, problem: 'threw: boom' },
      { kind: 'rule_action', action: 'quiet', step: 1 },
      { kind: 'rule_action', action: 'plain', step: 1, notices: ['plain'] },
    ]);
    // The notices go out at the start of the next turn, after the tool results.
    expect(entered.appended.slice(-2)).toEqual([
      { role: 'user', content: '[harness] Step 1, 1 params' },
      { role: 'user', content: '[harness] plain' },
    ]);
    expect(entered.context.notices).toEqual([]);
  });

  it('a built-in action replaced with override: true runs as "<name> (overridden)"; the built-in notify fills in the todo list', () => {
    const rules = rulesWith({
      phases: {
        build: {
          onEnter: [
            { action: 'notify', text: 'Open: {todo}' },
            { action: 'mark', label: 'in build' },
          ],
        },
      },
    });
    const own = createHarnessMachine(rules, {
      actions: { notify: { override: true, run: (_view, params) => ({ notices: [`mine: ${String(params.text)}`] }) } },
    });
    const builtIn = createHarnessMachine(rules);
    const enter = (machine: ReturnType<typeof createHarnessMachine>) => {
      const probe = probeHarness(machine, rules, { at: 'plan.think' });
      probe.reply(reply(call('read_file', { path: 'a.js' })));
      return probe.tools([read('a.js', 'x')]);
    };
    // Entering build takes a first edit; here the plan exits on a written todo list instead.
    const todoRules = rulesWith({ ...rules, phases: { ...rules.phases, plan: { ...rules.phases.plan, exits: [{ guard: 'always', to: 'build' }] } } });
    const run = (options: Parameters<typeof createHarnessMachine>[1]) => {
      const machine = createHarnessMachine(todoRules, options);
      const probe = probeHarness(machine, todoRules, {
        at: 'plan.think',
        context: { facts: { ...probeHarness(machine, todoRules).context.facts, todo: [{ task: 'fix a', done: false }] } },
      });
      probe.reply(reply(call('read_file', { path: 'a.js' })));
      return probe.tools([read('a.js', 'x')]);
    };
    expect(enter(own).state).toBe('plan.compact');
    expect(enter(builtIn).state).toBe('plan.compact');
    const mine = run({ actions: { notify: { override: true, run: (_view, params) => ({ notices: [`mine: ${String(params.text)}`] }) } } });
    expect(mine.notes.filter((note) => note.kind === 'rule_action').map((note) => note.action)).toEqual(['notify', 'mark']);
    expect(mine.appended.at(-1)).toEqual({ role: 'user', content: '[harness] mine: Open: {todo}' });
    const plain = run(undefined);
    expect(plain.appended.at(-1)).toEqual({ role: 'user', content: '[harness] Open: fix a' });
    expect(plain.notes.filter((note) => note.kind === 'rule_action')).toEqual([
      { kind: 'rule_action', action: 'notify', step: 1, notices: ['Open: fix a'] },
      { kind: 'rule_action', action: 'mark', step: 1, label: 'in build' },
    ]);
  });

  it('one registered guard and one registered action work side by side', () => {
    const rules = rulesWith({ phases: { build: { exits: [{ guard: 'afterOne', to: 'verify', actions: [{ action: 'say', text: 'moving on' }] }] } } });
    const machine = createHarnessMachine(rules, {
      guards: { afterOne: (view) => view.step >= 1 },
      actions: { say: (_view, params) => ({ notices: [String(params.text)] }) },
    });
    const step = probeHarness(machine, rules, { at: 'build.think' }).reply({ content: 'hm' });
    expect(step.state).toBe('verify.compact');
    expect(step.appended.at(-1)).toEqual({ role: 'user', content: '[harness] moving on' });
  });

  it("registry problems name where the registry came from, or 'rules module'", () => {
    const rules = rulesWith({});
    expect(() => createHarnessMachine(rules, { guards: { bad: 3 as never }, source: 'rein.config.mjs' })).toThrow(
      new UsageError('rein.config.mjs: guards.bad: expected a function (view, params) => boolean, or { test, summary?, params?, override? }'),
    );
    expect(() => createHarnessMachine(rules, { actions: { bad: 3 as never } })).toThrow('rules module: actions.bad: expected a function');
    // Anything else is refused as clearly, never a TypeError from reading it.
    for (const bad of [undefined, 'x', { test: 3 }, { run: 3 }]) {
      expect(() => createHarnessMachine(rules, { guards: { bad: bad as never } }), JSON.stringify(bad)).toThrow(
        'rules module: guards.bad: expected a function',
      );
      expect(() => createHarnessMachine(rules, { actions: { bad: bad as never } }), JSON.stringify(bad)).toThrow(
        'rules module: actions.bad: expected a function',
      );
    }
    // A rule naming an unregistered guard fails when the machine is built, before anything runs.
    expect(() => createHarnessMachine(rulesWith({ phases: { build: { exits: [{ guard: 'mine', to: 'verify' }] } } }))).toThrow(
      'phases.build.exits[0].guard: unknown guard "mine"',
    );
  });
});
