import { argsHash, callFacts } from '../approvals/call-facts.js';
import { type ApprovalPolicy, judgeCall } from '../approvals/evaluate.js';
import { type ApprovalDecision, decisionFits, denialText, type PendingApproval } from '../approvals/pending.js';
import { toRemember } from '../approvals/remembered.js';
import type { MachineNote } from '../lib/trace-events.js';
import type { ApprovalState, DecidedCall, HarnessContext } from './types.js';
import type { Update } from './update.js';

/**
 * The approval step of the turn cycle: before the tool actor runs, the
 * calls from the cursor are judged by the approval rules. Denied calls are
 * marked (the tool actor answers them with the denial instead of running
 * them), allowed ones may run, and the first call that needs an answer stops
 * the batch there: at the cursor it becomes the pending approval, further on
 * it bounds the calls the tool actor runs now.
 */

export function initialApprovals(remembered: ApprovalState['remembered'] = []): ApprovalState {
  return { pending: null, decided: {}, runUntil: 0, remembered };
}

export function screenUpdate(context: HarnessContext, params: { policy: ApprovalPolicy }): Update {
  const { calls, cursor, approvals } = context;
  // Decisions only ever concern this turn's calls (ids are unique in a run): older ones are dropped.
  const ids = new Set(calls.map((call) => call.id));
  const decided: Record<string, DecidedCall> = Object.fromEntries(Object.entries(approvals.decided).filter(([id]) => ids.has(id)));
  const notes: MachineNote[] = [];
  let pending: PendingApproval | null = null;
  let runUntil = calls.length;
  for (let index = cursor; index < calls.length; index++) {
    const call = calls[index]!;
    const name = call.function.name;
    // Calls after a finish run only if the gate refuses it: they are judged then, not before.
    if (name === 'finish') {
      runUntil = index + 1;
      break;
    }
    const hash = argsHash(name, call.function.arguments);
    if (decided[call.id]?.argsHash === hash) continue;
    const facts = callFacts(name, call.function.arguments);
    const judgement = judgeCall(facts, params.policy, approvals.remembered, hash);
    if (judgement.verdict === 'ask') {
      if (index === cursor) {
        pending = { callId: call.id, tool: name, args: facts.args, argsHash: hash, reason: judgement.reason, phase: context.phase, step: context.step };
        notes.push({ kind: 'approval_ask', step: context.step, phase: context.phase, callId: call.id, tool: name, argsHash: hash, reason: judgement.reason });
      }
      runUntil = index;
      break;
    }
    // Calls the rules let through without asking are traced only when a deny rule or a remembered decision decided.
    if (judgement.by === 'deny' || judgement.by === 'remembered') {
      const by = judgement.by === 'deny' ? 'rule' : 'remembered';
      decided[call.id] = { verdict: judgement.verdict, argsHash: hash, by, message: judgement.reason };
      notes.push({
        kind: 'approval_decision',
        step: context.step,
        callId: call.id,
        tool: name,
        argsHash: hash,
        verdict: judgement.verdict,
        by,
        reason: judgement.reason,
      });
    }
  }
  return { context: { approvals: { ...approvals, decided, pending, runUntil } }, notes };
}

/** An answer arrived for the pending call: it is recorded for that call (and remembered in its scope); the screen then judges on. */
export function decisionUpdate(context: HarnessContext, decision: ApprovalDecision): Update {
  const { approvals } = context;
  const pending = approvals.pending;
  if (!pending) return {};
  // An answer for another call, or for other arguments, never approves: it fails closed as a denial.
  const fits = decisionFits(pending, decision);
  const verdict = fits ? decision.verdict : 'deny';
  const message = fits
    ? decision.message
    : `the answer was for another call (${decision.callId}, arguments ${decision.argsHash.slice(0, 8)}), so it counts as a denial`;
  const decided: DecidedCall = { verdict, argsHash: pending.argsHash, by: decision.by, ...(message ? { message } : {}) };
  const memory =
    fits && decision.remember ? toRemember(decision.remember, verdict, callFacts(pending.tool, JSON.stringify(pending.args)), pending.argsHash) : null;
  const note: MachineNote = {
    kind: 'approval_decision',
    step: context.step,
    callId: pending.callId,
    tool: pending.tool,
    argsHash: pending.argsHash,
    verdict,
    by: decision.by,
    ...(message ? { message } : {}),
    ...(fits ? {} : { mismatch: true }),
    ...(memory ? { remember: memory.scope } : {}),
    ...(decision.waitedMs !== undefined ? { waitedMs: decision.waitedMs } : {}),
  };
  return {
    context: {
      approvals: {
        ...approvals,
        pending: null,
        decided: { ...approvals.decided, [pending.callId]: decided },
        // Repository decisions are written to the trust file by whoever took the answer; in the run they hold like the others.
        remembered: memory ? [...approvals.remembered, memory] : approvals.remembered,
      },
    },
    notes: [note],
  };
}

/** The approver failed (a crashed prompt, an unreadable answer file): the call is denied, never run. */
export function approverFailureUpdate(context: HarnessContext, error: unknown): Update {
  const pending = context.approvals.pending;
  if (!pending) return {};
  const why = error instanceof Error ? error.message : String(error);
  return decisionUpdate(context, {
    callId: pending.callId,
    argsHash: pending.argsHash,
    verdict: 'deny',
    by: 'policy',
    message: `no answer could be taken (${why})`,
  });
}

/** The tool result of a call denied by a rule, a remembered decision or an answer. */
export function denialFor(decided: DecidedCall): string {
  return denialText(
    decided.by === 'rule' ? 'by an approval rule' : decided.by === 'remembered' ? 'by a remembered decision' : `by ${decided.by}`,
    decided.message,
  );
}

/** This turn's denied calls with the text each gets as its result (the tool actor's `denied`). */
export function deniedCalls(context: HarnessContext): Record<string, string> {
  const denied: Record<string, string> = {};
  for (const [id, decided] of Object.entries(context.approvals.decided)) if (decided.verdict === 'deny') denied[id] = denialFor(decided);
  return denied;
}
