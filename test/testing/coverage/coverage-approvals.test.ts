import { describe, expect, it } from 'vitest';
import { coverage } from './coverage-helper.js';

// Approvals and hooks at every moment add screen, awaitingApproval and a hook state per moment (preToolHook,
// postToolHook, phaseHook, settleHook, finishHook, and the end states' runEnd hooks before `ended`): the search answers
// waiting calls (bound, stale, a failed approver) and hooks (no opinion, a denial, a note, a failure), and covers all of it.
describe('model-based coverage with approvals and hooks at every moment', { timeout: 900_000 }, () => {
  it('every transition, the approval and hook states included, is taken and replays with scripted actors', async () => {
    const hook = [{ command: 'true' }];
    const { report, text, replay } = coverage(
      { approvals: { ask: ['run'] }, hooks: { preToolUse: hook, postToolUse: hook, phaseChange: hook, beforeFinish: hook, runEnd: hook } },
      'approvals: ask run; hooks at every moment',
    );
    const keys = report.transitions.map((info) => info.key);
    expect(keys).toContain('build.awaitingApproval --xstate.done.actor.approver [answerFitsPending]--> build.screen');
    expect(keys).toContain('build.awaitingApproval --xstate.done.actor.approver--> build.screen');
    expect(keys).toContain('verify.finishHook --xstate.done.actor.finishHook [hookDeniedFinish]--> verify.afterTools');
    expect(keys).toContain('build.act --xstate.done.actor.tools [callsRan]--> build.postToolHook');
    expect(keys).toContain('build.postToolHook --xstate.done.actor.postToolHook--> build.afterTools');
    expect(keys).toContain('verify.settleHook --xstate.done.actor.phaseHook--> verify.settle');
    expect(keys).toContain('build.phaseHook --xstate.done.actor.phaseHook--> build.observe');
    expect(keys).toContain('done --xstate.done.actor.runEndHook--> ended');
    // The transition a preToolUse hook's search once missed: the gate accepting in fix.
    expect(keys).toContain('fix.gate --always [testsPassedSinceLastEdit(runs=1)]--> done');
    expect(
      report.missing.map((info) => info.key),
      text,
    ).toEqual([]);
    expect(report.unreachableStates, text).toEqual([]);
    expect([...(await replay())]).toEqual([]);
  });

  it('deny rules alone (no ask rule): no waiting state is built, and every transition is covered', async () => {
    const { report, text, replay } = coverage({ approvals: { deny: ['run(rm -rf *)'] } }, 'approvals: deny only');
    expect(
      report.transitions.some((info) => info.key.includes('awaitingApproval')),
      text,
    ).toBe(false);
    expect(report.transitions.map((info) => info.key)).toContain('build.screen --always--> build.act');
    expect(
      report.missing.map((info) => info.key),
      text,
    ).toEqual([]);
    expect(report.unreachableStates, text).toEqual([]);
    expect([...(await replay())]).toEqual([]);
  });
});
