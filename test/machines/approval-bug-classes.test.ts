import { describe, expect, it } from 'vitest';
import { deniedCalls } from '../../machines/approval-handling.js';
import { argsHash } from '../../rules/approvals/call-facts.js';
import { createHarnessMachine, probeHarness, type RulesInput, ran, rulesSchema } from '../../testing/index.js';

/**
 * The complaints other agents' trackers repeat about approvals, each as a case that would expose it here.
 * Across a real resume, test/run/approval-resume-bugs.test.ts has a declined call killed at its act checkpoint
 * (it fails if the tool actor is not handed the denial) and a node re-run on resume (it fails if the waiting
 * state is not saved); test/run/approval-run.test.ts kills a waiting run with SIGKILL.
 */
const start = (input: RulesInput, context?: Parameters<typeof probeHarness>[2]) => {
  const rules = rulesSchema.parse(input);
  return probeHarness(createHarnessMachine(rules), rules, { at: 'build.think', ...context });
};
const run = (command: string) => ({ name: 'run', args: { command } });

describe('approval bug classes, each with a case that would expose it', () => {
  it('"asked again after don\'t ask again": a remembered command is not asked in the next turn', () => {
    const harness = start({ approvals: { ask: ['run'] } });
    // Not the verification command: the gate's own check is never asked about.
    harness.reply({ calls: [run('make lint')] });
    harness.answer({ verdict: 'allow', remember: 'command' });
    harness.tools([ran('make lint', 1)]);
    harness.contextReady();
    expect(harness.reply({ calls: [run('make lint')] }).state).toMatch(/\.act$/);
  });

  it('"allow rules ignored": an allow rule beats a default of ask', () => {
    const harness = start({ approvals: { default: 'ask', allow: ['read_file', 'run(npm test*)'] } });
    expect(harness.reply({ calls: [{ name: 'read_file', args: { path: 'a.ts' } }, run('npm test -- --runInBand')] }).state).toBe('build.act');
  });

  it('"a declined call executed after resume": the denial is in the saved context, so a restored run still answers it with the denial', () => {
    const harness = start({ approvals: { ask: ['run'] } });
    harness.reply({ calls: [run('make deploy')] });
    const denied = harness.answer({ verdict: 'deny', message: 'not today' });
    // What a resumed run starts from: the persisted context at the act checkpoint.
    const resumed = start({ approvals: { ask: ['run'] } }, { at: 'build.act', context: JSON.parse(JSON.stringify(denied.context)) });
    expect(Object.values(deniedCalls(resumed.context))[0]).toMatch(/not today/);
  });

  it('"a stale approval applied to a newer call": an answer carrying the previous call\'s hash denies the new one', () => {
    const harness = start({ approvals: { ask: ['run'] } });
    harness.reply({ calls: [run('make build')] });
    const old = harness.context.approvals.pending!;
    harness.answer('allow');
    harness.tools([ran('make build', 0)]);
    harness.contextReady();
    harness.reply({ calls: [run('make deploy')] });
    const step = harness.answer({ verdict: 'allow', argsHash: old.argsHash });
    expect(old.argsHash).toBe(argsHash('run', JSON.stringify({ command: 'make build' })));
    expect(Object.values(deniedCalls(step.context))).toHaveLength(1);
  });
});
