import { describe, expect, it } from 'vitest';
import { coverage } from './coverage-helper.js';

// Approvals and a beforeFinish hook add screen, awaitingApproval and finishHook to every phase: the search answers
// waiting calls (bound, stale, a failed approver) and hooks (no opinion, a denial, a failure), and covers all of it.
describe('model-based coverage with approvals and a beforeFinish hook', { timeout: 180_000 }, () => {
  it('every transition, awaitingApproval and finishHook included, is taken and replays with scripted actors', async () => {
    const { report, text, replay } = coverage(
      { approvals: { ask: ['run'] }, hooks: { beforeFinish: [{ command: 'true' }] } },
      'approvals: ask run; hooks: beforeFinish',
    );
    const keys = report.transitions.map((info) => info.key);
    expect(keys).toContain('build.awaitingApproval --xstate.done.actor.approver [answerFitsPending]--> build.screen');
    expect(keys).toContain('build.awaitingApproval --xstate.done.actor.approver--> build.screen');
    expect(keys).toContain('verify.finishHook --xstate.done.actor.finishHook [hookDeniedFinish]--> verify.afterTools');
    expect(
      report.missing.map((info) => info.key),
      text,
    ).toEqual([]);
    expect(report.unreachableStates, text).toEqual([]);
    expect([...(await replay())]).toEqual([]);
  });
});
