import { describe, expect, it } from 'vitest';
import { deniedCalls } from '../../machines/approval-handling.js';
import { argsHash } from '../../rules/approvals/call-facts.js';
import { createHarnessMachine, defaultRules, denied, probeHarness, type RulesInput, ran, read, rulesSchema } from '../../testing/index.js';

const rulesWith = (input: RulesInput) => rulesSchema.parse(input);
const probe = (input: RulesInput, at = 'build.think') => {
  const rules = rulesWith(input);
  return probeHarness(createHarnessMachine(rules), rules, { at });
};
const runCall = (command: string, id?: string) => ({ name: 'run', args: { command }, ...(id ? { id } : {}) });

describe('awaitingApproval: a call the approval rules ask about waits for an answer (machines/phase-state.ts)', () => {
  it('without approval rules the chart is unchanged: no screen or awaitingApproval state, a reply goes straight to act', () => {
    const machine = createHarnessMachine(defaultRules());
    expect(Object.keys(machine.root.states.build!.states)).not.toContain('awaitingApproval');
    expect(Object.keys(machine.root.states.build!.states)).not.toContain('screen');
    const step = probeHarness(machine, defaultRules(), { at: 'build.think' }).reply({ calls: [runCall('rm -rf build')] });
    expect(step.state).toBe('build.act');
  });

  it('an asked call moves the machine to awaitingApproval with the request (call id, tool, arguments, hash, reason) in the context', () => {
    const step = probe({ approvals: { ask: ['run(git push *)'] } }).reply({ calls: [runCall('git push origin main')] });
    expect(step.state).toBe('build.awaitingApproval');
    const pending = step.context.approvals.pending!;
    expect(pending).toMatchObject({ tool: 'run', args: { command: 'git push origin main' }, phase: 'build', step: 1 });
    expect(pending.argsHash).toBe(argsHash('run', JSON.stringify({ command: 'git push origin main' })));
    expect(pending.reason).toContain('git push *');
    expect(step.notes).toContainEqual(expect.objectContaining({ kind: 'approval_ask', callId: pending.callId, argsHash: pending.argsHash }));
  });

  it('approve runs the call: the tool actor gets it, nothing is denied', () => {
    const harness = probe({ approvals: { ask: ['run'] } });
    harness.reply({ calls: [runCall('make')] });
    const step = harness.answer('allow');
    expect(step.state).toBe('build.act');
    expect(deniedCalls(step.context)).toEqual({});
    expect(step.notes).toContainEqual(expect.objectContaining({ kind: 'approval_decision', verdict: 'allow', by: 'command' }));
    expect(harness.tools([ran('make', 0)]).state).not.toContain('awaitingApproval');
  });

  it('deny answers the call with a denial carrying the message, and the run goes on', () => {
    const harness = probe({ approvals: { ask: ['run'] } });
    harness.reply({ calls: [runCall('make deploy')] });
    const step = harness.answer({ verdict: 'deny', message: 'not on a Friday' });
    expect(step.state).toBe('build.act');
    const [text] = Object.values(deniedCalls(step.context));
    expect(text).toMatch(/denied \(by command\).*not on a Friday/);
    const after = harness.tools([denied('run', text!, { command: 'make deploy' })]);
    expect(after.appended).toContainEqual(expect.objectContaining({ role: 'tool', content: text }));
    expect(after.state).not.toMatch(/failed|awaitingApproval/);
  });

  it('an answer bound to other arguments (a stale approval) fails closed: the call is denied, never run', () => {
    const harness = probe({ approvals: { ask: ['run'] } });
    harness.reply({ calls: [runCall('rm -rf /tmp/x')] });
    const step = harness.answer({ verdict: 'allow', argsHash: argsHash('run', '{"command":"ls"}') });
    expect(step.state).toBe('build.act');
    expect(Object.values(step.context.approvals.decided)).toEqual([expect.objectContaining({ verdict: 'deny' })]);
    expect(step.notes).toContainEqual(expect.objectContaining({ kind: 'approval_decision', verdict: 'deny', mismatch: true }));
  });

  it('an answer for another call id fails closed too', () => {
    const harness = probe({ approvals: { ask: ['run'] } });
    harness.reply({ calls: [runCall('make')] });
    const step = harness.answer({ verdict: 'allow', callId: 'call_9_9' });
    expect(Object.values(deniedCalls(step.context))).toHaveLength(1);
  });

  it('an approver that fails (a timeout, a crashed prompt) counts as deny', () => {
    const harness = probe({ approvals: { ask: ['run'] } });
    harness.reply({ calls: [runCall('make')] });
    const step = harness.answer(new Error('no terminal'));
    expect(Object.values(deniedCalls(step.context))[0]).toMatch(/no answer could be taken \(no terminal\)/);
  });

  it('deny rules alone screen calls but build no awaitingApproval: nothing can ask, so no call can wait', () => {
    for (const input of [{ approvals: { deny: ['run(rm -rf *)'] } }, { phases: { fix: { approvals: { deny: ['run'] } } } }] as RulesInput[]) {
      const machine = createHarnessMachine(rulesWith(input));
      for (const phase of ['plan', 'build', 'verify', 'fix']) expect(Object.keys(machine.root.states[phase]!.states)).not.toContain('awaitingApproval');
    }
    const screened = createHarnessMachine(rulesWith({ approvals: { deny: ['run(rm -rf *)'] } }));
    expect(Object.keys(screened.root.states.build!.states)).toContain('screen');
    // An ask rule in one phase, a default of ask, or a preToolUse hook that may ask: the waiting state is built where a call can wait.
    const asked = createHarnessMachine(rulesWith({ phases: { fix: { approvals: { ask: ['run(git push*)'] } } }, approvals: { deny: ['run(rm *)'] } }));
    expect(['plan', 'build', 'verify', 'fix'].filter((phase) => 'awaitingApproval' in asked.root.states[phase]!.states)).toEqual(['fix']);
    const byDefault = createHarnessMachine(rulesWith({ phases: { verify: { approvals: { default: 'ask' } } } }));
    expect(['plan', 'build', 'verify', 'fix'].filter((phase) => 'awaitingApproval' in byDefault.root.states[phase]!.states)).toEqual(['verify']);
    expect('awaitingApproval' in createHarnessMachine(rulesWith({ hooks: { preToolUse: [{ command: 'true' }] } })).root.states.plan!.states).toBe(true);
    // A hook only for a tool no phase can have asks nowhere.
    expect(
      'awaitingApproval' in createHarnessMachine(rulesWith({ hooks: { preToolUse: [{ command: 'true', tools: 'deploy_*' }] } })).root.states.plan!.states,
    ).toBe(false);
  });

  it('where nothing can ask, a hook that asks all the same (a call to an unknown tool its pattern matches) fails closed: a denial', () => {
    const harness = probe({ hooks: { preToolUse: [{ command: 'true', tools: 'deploy_*' }] } });
    harness.reply({ calls: [{ name: 'deploy_prod', args: {} }] });
    const step = harness.hook({ decision: 'ask', message: 'a person must decide' });
    expect(step.state).toBe('build.act');
    expect(Object.values(deniedCalls(step.context))[0]).toMatch(/a person must decide, but nothing can answer in this phase/);
  });

  it('a deny rule refuses without asking: the call goes to the tool actor as a denial', () => {
    const step = probe({ approvals: { deny: [{ tool: 'run', command: 'rm *', reason: 'no deleting' }] } }).reply({ calls: [runCall('rm -rf src')] });
    expect(step.state).toBe('build.act');
    expect(Object.values(deniedCalls(step.context))[0]).toMatch(/denied \(by an approval rule\).*no deleting/);
    expect(step.notes).toContainEqual(expect.objectContaining({ kind: 'approval_decision', by: 'rule', verdict: 'deny' }));
  });

  it('calls before an asked one run first; the asked one waits; the ones after it run once it is approved', () => {
    const harness = probe({ approvals: { ask: ['run'] } });
    harness.reply({ calls: [{ name: 'read_file', args: { path: 'a' } }, runCall('make'), { name: 'read_file', args: { path: 'b' } }] });
    expect(harness.state).toBe('build.act');
    // Only the read before the asked call is the tool actor's now (the probe checks the count).
    expect(harness.tools([read('a')]).state).toBe('build.awaitingApproval');
    harness.answer('allow');
    expect(harness.state).toBe('build.act');
    expect(harness.tools([ran('make', 0), read('b')]).state).not.toContain('awaitingApproval');
  });

  it('a remembered allow for a tool is never asked again in the run; remembering "once" asks again', () => {
    const harness = probe({ approvals: { ask: ['run'] } });
    harness.reply({ calls: [runCall('make')] });
    harness.answer({ verdict: 'allow', remember: 'tool' });
    expect(harness.tools([ran('make', 1)]).state).toMatch(/\.compact$/);
    harness.contextReady();
    expect(harness.reply({ calls: [runCall('make check')] }).state).toMatch(/\.act$/);
    const once = probe({ approvals: { ask: ['run'] } });
    once.reply({ calls: [runCall('make')] });
    once.answer({ verdict: 'allow', remember: 'once' });
    once.tools([ran('make', 1)]);
    once.contextReady();
    expect(once.reply({ calls: [runCall('make')] }).state).toMatch(/\.awaitingApproval$/);
  });

  it('with the gate off, calls held for an approval still run after the batch before them (not dropped at review)', () => {
    const harness = probe({ verification: { gate: false }, approvals: { ask: ['run'] } });
    harness.reply({ calls: [{ name: 'read_file', args: { path: 'a' } }, runCall('make')] });
    expect(harness.tools([read('a')]).state).toBe('build.awaitingApproval');
  });

  it('a call after a finish is not asked about before the gate has judged the finish', () => {
    const harness = probe({ approvals: { ask: ['run'] } });
    const step = harness.reply({ calls: [{ name: 'finish', args: { summary: 'done' } }, runCall('make')] });
    expect(step.state).toBe('build.act');
    expect(step.context.approvals.pending).toBeNull();
  });

  it('a phase with its own ask rule asks there and nowhere else', () => {
    const rules: RulesInput = { phases: { verify: { approvals: { ask: ['run'] } } } };
    expect(probe(rules, 'verify.think').reply({ calls: [runCall('make')] }).state).toBe('verify.awaitingApproval');
    expect(probe(rules, 'build.think').reply({ calls: [runCall('make')] }).state).toBe('build.act');
  });
});

describe('hook states: preToolHook and finishHook (machines/phase-state.ts)', () => {
  const hooks = { preToolUse: [{ command: './policy.sh' }], beforeFinish: [{ command: './ready.sh' }] };

  it('every call goes through its preToolUse hook first; a hook allow skips the ask rule, a hook deny refuses', () => {
    const harness = probe({ hooks, approvals: { ask: ['run'] } });
    expect(harness.reply({ calls: [runCall('make'), runCall('make deploy')] }).state).toBe('build.preToolHook');
    // The hook allows the first: no ask, it runs alone (the next call gets its own hook).
    expect(harness.hook({ decision: 'allow' }).state).toBe('build.act');
    expect(harness.tools([ran('make', 0)]).state).toBe('build.preToolHook');
    const step = harness.hook({ decision: 'deny', message: 'not from here' });
    expect(Object.values(deniedCalls(step.context))[0]).toMatch(/denied \(by hook\)\. They said: not from here/);
  });

  it('a hook cannot allow what a deny rule refuses; a hook ask waits for an answer; a failed hooks actor denies', () => {
    const denied = probe({ hooks, approvals: { deny: ['run(rm *)'] } });
    denied.reply({ calls: [runCall('rm -rf src')] });
    expect(Object.values(deniedCalls(denied.hook({ decision: 'allow' }).context))[0]).toMatch(/by an approval rule/);
    const asked = probe({ hooks });
    asked.reply({ calls: [runCall('make')] });
    const waiting = asked.hook({ decision: 'ask', message: 'the policy wants a person' });
    expect(waiting.state).toBe('build.awaitingApproval');
    expect(waiting.context.approvals.pending?.reason).toBe('the policy wants a person');
    const failed = probe({ hooks });
    failed.reply({ calls: [runCall('make')] });
    expect(Object.values(deniedCalls(failed.hook(new Error('spawn failed')).context))[0]).toMatch(/hooks could not run \(spawn failed\)/);
  });

  it('a beforeFinish denial refuses the finish with its reason; no opinion lets the gate judge', () => {
    const harness = probe({ hooks: { beforeFinish: hooks.beforeFinish }, verification: { gate: false } });
    harness.reply({ calls: [{ name: 'finish', args: { summary: 'done' } }] });
    harness.tools([], { summary: 'done' });
    expect(harness.state).toBe('build.finishHook');
    const refused = harness.hook({ decision: 'deny', message: 'write the changelog first' });
    expect(refused.appended).toContainEqual(
      expect.objectContaining({ role: 'tool', content: 'Finish refused by a beforeFinish hook: write the changelog first' }),
    );
    expect(refused.state).not.toBe('done');
    const accepted = probe({ hooks: { beforeFinish: hooks.beforeFinish }, verification: { gate: false } });
    accepted.reply({ calls: [{ name: 'finish', args: { summary: 'done' } }] });
    accepted.tools([], { summary: 'done' });
    expect(accepted.hook().state).toBe('done');
  });
});
