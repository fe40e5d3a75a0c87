import { describe, expect, it } from 'vitest';
import { phaseChangeInput, postToolInput, runEndInput } from '../../machines/hook-handling.js';
import { createHarnessMachine, defaultRules, probeHarness, type RulesInput, ran, rulesSchema } from '../../testing/index.js';

const probe = (input: RulesInput, at = 'build.think') => {
  const rules = rulesSchema.parse(input);
  return probeHarness(createHarnessMachine(rules), rules, { at });
};
const runCall = (command: string) => ({ name: 'run', args: { command } });
const hook = [{ command: './hook.sh' }];
const HOOK_STATES = ['preToolHook', 'postToolHook', 'phaseHook', 'settleHook', 'finishHook'];

describe('every hook moment is a state of the chart that invokes the hooks actor (machines/hook-handling.ts)', () => {
  it('without hooks the chart has none of them: the default chart is the plain turn cycle and its end states are final', () => {
    const machine = createHarnessMachine(defaultRules());
    for (const phase of ['plan', 'build', 'verify', 'fix']) {
      const states = Object.keys(machine.root.states[phase]!.states);
      expect(states.filter((state) => HOOK_STATES.includes(state))).toEqual([]);
    }
    expect(machine.root.states.done!.type).toBe('final');
    expect(Object.keys(machine.root.states)).not.toContain('ended');
    // And with every moment hooked, each has its state, invoking the hooks actor under its own id.
    const hooked = createHarnessMachine(
      rulesSchema.parse({ hooks: { preToolUse: hook, postToolUse: hook, phaseChange: hook, beforeFinish: hook, runEnd: hook } }),
    );
    const verify = hooked.root.states.verify!.states;
    expect(HOOK_STATES.filter((state) => state in verify)).toEqual(['preToolHook', 'postToolHook', 'settleHook', 'finishHook']);
    expect(Object.keys(hooked.root.states.fix!.states)).toContain('phaseHook');
    expect(verify.postToolHook!.invoke.map((invoke) => [invoke.id, invoke.src])).toEqual([['postToolHook', 'hooks']]);
    expect(hooked.root.states.done!.type).not.toBe('final');
    expect(hooked.root.states.done!.invoke.map((invoke) => invoke.id)).toEqual(['runEndHook']);
    expect(hooked.root.states.ended!.type).toBe('final');
  });

  it('postToolUse: the tool actor runs one call, its hooks get it with its result, their note is added to that result, then the next call runs', () => {
    const harness = probe({ hooks: { postToolUse: hook } });
    harness.reply({ calls: [runCall('make'), runCall('make test')] });
    // One call at a time: the tool actor is given only the first (results for both are more than it runs).
    const both = probe({ hooks: { postToolUse: hook } });
    both.reply({ calls: [runCall('make'), runCall('make test')] });
    expect(() => both.tools([ran('make', 0), ran('make test', 0)])).toThrow(/2 result\(s\) for 1 call\(s\) \(run\)/);
    expect(harness.tools([ran('make', 0)]).state).toBe('build.postToolHook');
    expect(postToolInput(harness.context)).toMatchObject({
      moment: 'postToolUse',
      tool: 'run',
      event: { phase: 'build', call: { tool: 'run', args: { command: 'make' } }, result: { ok: true } },
    });
    const noted = harness.hook({ notes: ['lint found 2 warnings'] });
    expect(noted.appended).toEqual([expect.objectContaining({ role: 'tool', content: expect.stringMatching(/\n\[hook note\] lint found 2 warnings$/) })]);
    expect(noted.context.heldResults).toBeNull();
    expect(noted.state).toBe('build.act');
    expect(harness.tools([ran('make test', 0)]).state).toBe('build.postToolHook');
  });

  it('postToolUse: a hooks actor that fails is traced, and the call keeps its result', () => {
    const harness = probe({ hooks: { postToolUse: hook } });
    harness.reply({ calls: [runCall('make')] });
    harness.tools([ran('make', 0)]);
    const failed = harness.hook(new Error('spawn failed'));
    expect(failed.notes).toContainEqual(expect.objectContaining({ kind: 'hook', moment: 'postToolUse', problem: expect.stringMatching(/spawn failed/) }));
    expect(failed.appended).toEqual([expect.objectContaining({ role: 'tool', content: expect.stringMatching(/^exit=0/) })]);
    expect(String(failed.appended[0]!.content)).not.toContain('[hook note]');
  });

  it('phaseChange: a phase entered from another runs its hooks first (from and to in the event), then settles or starts a turn', () => {
    const harness = probe({ hooks: { phaseChange: hook } });
    harness.reply({ calls: [runCall('npm test')] });
    // A failing test run: build → verify (settle) → fix in one turn, each phase told.
    expect(harness.tools([ran('npm test', 1)]).state).toBe('verify.settleHook');
    expect(phaseChangeInput(harness.context, { to: 'verify' }).event).toEqual({ from: 'build', to: 'verify', step: 1 });
    expect(harness.hook().state).toBe('fix.phaseHook');
    expect(phaseChangeInput(harness.context, { to: 'fix' }).event).toEqual({ from: 'verify', to: 'fix', step: 1 });
    const failed = harness.hook(new Error('no shell'));
    expect(failed.state).toBe('fix.compact');
    expect(failed.notes).toContainEqual(expect.objectContaining({ kind: 'hook', moment: 'phaseChange', problem: expect.stringMatching(/no shell/) }));
  });

  it('runEnd: the end state runs the hooks with how the run ended, then the run is final in `ended` with its status kept', () => {
    const harness = probe({ hooks: { runEnd: hook }, verification: { gate: false } });
    harness.reply({ calls: [{ name: 'finish', args: { summary: 'all done' } }] });
    const ending = harness.tools([], { summary: 'all done' });
    expect(ending.state).toBe('done');
    expect(harness.snapshot.status).toBe('active');
    expect(runEndInput(harness.context)).toMatchObject({ moment: 'runEnd', event: { status: 'done', summary: 'all done', steps: 1 } });
    // The end line waits for the hooks, so it stays the trace's last line (after the hooks' own lines).
    expect(ending.notes.map((note) => note.kind)).not.toContain('end');
    const ended = harness.hook(new Error('hook crashed'));
    expect(ended.state).toBe('ended');
    expect(ended.notes.map((note) => note.kind)).toEqual(['hook', 'end']);
    expect(ended.notes[1]).toMatchObject({ status: 'done', summary: 'all done' });
    expect(harness.snapshot.status).toBe('done');
    expect(harness.snapshot.output).toMatchObject({ status: 'done', summary: 'all done' });
  });
});
