import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createActor, toPromise } from 'xstate';
import { type AnswerSource, createApprover } from '../../../actors/approvals/approver.js';
import { argsHash } from '../../../rules/approvals/call-facts.js';
import type { PendingApproval } from '../../../rules/approvals/pending.js';
import { makeTempDir } from '../../helpers/workspace.js';

const ARGS = { command: 'git push' };
const pending: PendingApproval = {
  callId: 'call_1_0',
  tool: 'run',
  args: ARGS,
  argsHash: argsHash('run', JSON.stringify(ARGS)),
  reason: 'ask rule run',
  phase: 'build',
  step: 1,
};
/** A person at a terminal who never answers. */
const silent: AnswerSource = {
  by: 'terminal',
  ask: (_pending, signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
};

function approverIn(dir: string, now?: () => number) {
  return createApprover({
    requestPath: join(dir, 'approval-request.json'),
    answerPath: join(dir, 'approval-answer.json'),
    sources: [silent],
    headless: 'exit',
    pollMs: 20,
    ...(now ? { now } : {}),
  });
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts a wait and kills it (the actor stopped, as a SIGKILL stops the process) once `waitMs` have passed. */
async function waitThenKill(dir: string, timeoutMs: number, waitMs: number) {
  const actor = createActor(approverIn(dir), { input: { pending, timeoutMs } });
  actor.subscribe({ error: () => undefined });
  actor.start();
  await sleep(waitMs);
  actor.stop();
  return JSON.parse(readFileSync(join(dir, 'approval-request.json'), 'utf8')) as { askedAt: string; deadline: string };
}

describe('the approval timeout across a resume (actors/approvals/approver.ts, actors/approvals/answer-file.ts)', () => {
  it('the deadline is saved with the request, and a resumed wait counts from it instead of starting the timeout again', async () => {
    const dir = makeTempDir('rein-deadline-');
    const request = await waitThenKill(dir, 3000, 2000);
    expect(Date.parse(request.deadline) - Date.parse(request.askedAt)).toBe(3000);
    const resumedAt = Date.now();
    const decision = await toPromise(createActor(approverIn(dir), { input: { pending, timeoutMs: 3000 } }).start());
    // About 1 s was left; a fresh timeout would wait the whole 3 s.
    expect(Date.now() - resumedAt).toBeLessThan(2000);
    expect(decision).toMatchObject({ verdict: 'deny', by: 'timeout', callId: pending.callId });
    // How long it took counts from the first ask, across the kill.
    expect(decision.waitedMs).toBeGreaterThanOrEqual(2900);
    expect(existsSync(join(dir, 'approval-request.json'))).toBe(false);
  });

  it('a request already past its deadline when the run resumes is the timeout decision at once: deny', async () => {
    const dir = makeTempDir('rein-deadline-');
    await waitThenKill(dir, 60_000, 200);
    const later = () => Date.now() + 61_000;
    const resumedAt = Date.now();
    const decision = await toPromise(createActor(approverIn(dir, later), { input: { pending, timeoutMs: 60_000 } }).start());
    expect(Date.now() - resumedAt).toBeLessThan(1000);
    expect(decision).toMatchObject({ verdict: 'deny', by: 'timeout' });
  });

  it('an answer given while the run was down still counts, even past the deadline; a request for another call carries nothing', async () => {
    const dir = makeTempDir('rein-deadline-');
    await waitThenKill(dir, 60_000, 200);
    const { writeApprovalAnswer } = await import('../../../actors/approvals/answer-file.js');
    writeApprovalAnswer(join(dir, 'approval-answer.json'), { callId: pending.callId, argsHash: pending.argsHash, verdict: 'allow', by: 'command' });
    const later = () => Date.now() + 61_000;
    expect(await toPromise(createActor(approverIn(dir, later), { input: { pending, timeoutMs: 60_000 } }).start())).toMatchObject({
      verdict: 'allow',
      by: 'command',
    });
    // The old request is for another call: the new one gets its own full timeout.
    await waitThenKill(dir, 60_000, 200);
    const other = { ...pending, callId: 'call_2_0' };
    const actor = createActor(approverIn(dir, later), { input: { pending: other, timeoutMs: 60_000 } });
    actor.subscribe({ error: () => undefined });
    actor.start();
    await sleep(200);
    const written = JSON.parse(readFileSync(join(dir, 'approval-request.json'), 'utf8')) as { callId: string; deadline: string };
    expect(written.callId).toBe('call_2_0');
    expect(Date.parse(written.deadline)).toBeGreaterThan(Date.now() + 60_000);
    actor.stop();
  });
});
