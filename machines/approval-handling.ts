import type { ToolCall } from '../context/messages.js';
import { MCP_TOOL_PREFIX } from '../lib/tool-patterns.js';
import type { MachineNote } from '../lib/trace/trace-events.js';
import { argsHash, callFacts } from '../rules/approvals/call-facts.js';
import { type ApprovalJudgement, type ApprovalPolicy, judgeCall, policyCanAsk, policyCanStop } from '../rules/approvals/evaluate.js';
import { wildcard } from '../rules/approvals/patterns.js';
import { type ApprovalDecision, decisionFits, denialText, type PendingApproval } from '../rules/approvals/pending.js';
import { approvalPolicyOf } from '../rules/approvals/policy.js';
import { toRemember } from '../rules/approvals/remembered.js';
import type { Phase, Rules } from '../rules/schema.js';
import type { HooksOutput } from './actor-contracts.js';
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
  return { pending: null, decided: {}, runUntil: 0, remembered, hooked: {} };
}

export function screenUpdate(
  context: HarnessContext,
  params: { policy: ApprovalPolicy; oneAtATime?: boolean; asks?: boolean; verification?: readonly string[] },
): Update {
  const { calls, cursor, approvals } = context;
  // Decisions only ever concern this turn's calls (ids are unique in a run): older ones are dropped.
  const ids = new Set(calls.map((call) => call.id));
  const decided: Record<string, DecidedCall> = Object.fromEntries(Object.entries(approvals.decided).filter(([id]) => ids.has(id)));
  const hooked = Object.fromEntries(Object.entries(approvals.hooked).filter(([id]) => ids.has(id)));
  const notes: MachineNote[] = [];
  let pending: PendingApproval | null = null;
  let runUntil = calls.length;
  // With preToolUse hooks every call is screened after its own hook ran: one call at a time.
  const last = params.oneAtATime ? Math.min(calls.length, cursor + 1) : calls.length;
  for (let index = cursor; index < last; index++) {
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
    const verification = [context.testCmd, ...(params.verification ?? [])];
    const judged = withHook(verificationExempt(judgeCall(facts, params.policy, approvals.remembered, hash), facts, verification), hooked[call.id]);
    // Where the chart has no waiting state (nothing in the rules can ask here), a call that would wait fails closed.
    const judgement: typeof judged =
      judged.verdict === 'ask' && params.asks === false
        ? { verdict: 'deny', by: 'deny', reason: `${judged.reason}, but nothing can answer in this phase, so it counts as a denial` }
        : judged;
    if (judgement.verdict === 'ask') {
      if (index === cursor) {
        pending = { callId: call.id, tool: name, args: facts.args, argsHash: hash, reason: judgement.reason, phase: context.phase, step: context.step };
        notes.push({
          kind: 'approval_ask',
          step: context.step,
          phase: context.phase,
          callId: call.id,
          tool: name,
          args: facts.args,
          argsHash: hash,
          reason: judgement.reason,
        });
      }
      runUntil = index;
      break;
    }
    // Calls the rules let through without asking are traced only when a deny rule or a remembered decision decided.
    if (judgement.by === 'deny' || judgement.by === 'remembered' || judgement.by === 'hook') {
      const by = judgement.by === 'deny' ? 'rule' : judgement.by;
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
  if (params.oneAtATime) runUntil = Math.min(runUntil, last);
  return { context: { approvals: { ...approvals, decided, hooked, pending, runUntil } }, notes };
}

/**
 * The gate's own verification command (the test command, a check's command), run by the model exactly as written:
 * the person chose it, so it is never asked about. A deny rule still refuses it, and a remembered decision holds.
 */
function verificationExempt(judgement: ApprovalJudgement, facts: ReturnType<typeof callFacts>, commands: readonly string[]): ApprovalJudgement {
  if (judgement.verdict !== 'ask' || facts.tool !== 'run' || facts.command === undefined) return judgement;
  const command = squeezed(facts.command);
  if (!commands.some((each) => each.trim() !== '' && squeezed(each) === command)) return judgement;
  return { verdict: 'allow', by: 'allow', rule: 'the verification command', reason: 'the verification command is never asked about' };
}

const squeezed = (text: string) => text.trim().replace(/\s+/g, ' ');

/**
 * A preToolUse hook's answer over the rules' judgement: a deny rule still
 * refuses (a hook cannot allow what the rules deny); otherwise the hook's
 * deny, ask or allow decides, before remembered decisions and the lists.
 */
function withHook(
  judgement: ApprovalJudgement,
  hook: ApprovalState['hooked'][string] | undefined,
): ApprovalJudgement | (Omit<ApprovalJudgement, 'by'> & { by: 'hook' }) {
  if (!hook || judgement.by === 'deny') return judgement;
  const reason = hook.message ?? `the preToolUse hook answered ${hook.verdict}`;
  if (hook.verdict === 'ask') return { verdict: 'ask', by: 'ask', reason };
  return { verdict: hook.verdict, by: 'hook', reason };
}

/** The preToolUse hooks answered for the call at the cursor: kept for the screen; their notes go to the model after the turn. */
export function hookVerdictUpdate(context: HarnessContext, output: HooksOutput): Update {
  const call = context.calls[context.cursor];
  if (!call) return {};
  const { approvals } = context;
  const hooked = output.decision
    ? { ...approvals.hooked, [call.id]: { verdict: output.decision, ...(output.message ? { message: output.message } : {}) } }
    : approvals.hooked;
  if (!output.updatedArgs) return { context: { approvals: { ...approvals, hooked }, notices: [...context.notices, ...output.notes] } };
  // A hook's updatedInput: the call runs with these arguments, the rules judge them, and the model is told.
  const args = JSON.stringify(output.updatedArgs);
  const calls = context.calls.map((each, index) => (index === context.cursor ? { ...each, function: { ...each.function, arguments: args } } : each));
  const told = `[hook] a preToolUse hook changed the arguments of your ${call.function.name} call ${call.id} to: ${args}`;
  return { context: { calls, approvals: { ...approvals, hooked }, notices: [...context.notices, told, ...output.notes] } };
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
        // Repository decisions are written to the trust store by whoever took the answer; in the run they hold like the others.
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
function denialFor(decided: DecidedCall): string {
  return denialText(
    decided.by === 'rule' ? 'by an approval rule' : decided.by === 'remembered' ? 'by a remembered decision' : `by ${decided.by}`,
    decided.message,
  );
}

/** Who counts as a person answering: the terminal, the page, `rein approve`, or a decision a person remembered. */
const PERSON = new Set(['terminal', 'page', 'command', 'remembered']);

/** This turn's calls a person allowed: the built-in deny list's overridable rules do not refuse them (tools/permissions/deny-list.ts). */
export function personApprovedCalls(context: HarnessContext): string[] {
  return Object.entries(context.approvals.decided).flatMap(([id, decided]) => (decided.verdict === 'allow' && PERSON.has(decided.by) ? [id] : []));
}

/** This turn's denied calls with the text each gets as its result (the tool actor's `denied`). */
export function deniedCalls(context: HarnessContext): Record<string, string> {
  const denied: Record<string, string> = {};
  for (const [id, decided] of Object.entries(context.approvals.decided)) if (decided.verdict === 'deny') denied[id] = denialFor(decided);
  return denied;
}

/**
 * How a phase's tool actor is fed: `approves` when calls can wait or be refused before running (the screen), `asks`
 * when one can wait for an answer (awaitingApproval); `oneAtATime` with postToolUse hooks.
 */
interface BatchRules {
  approves: boolean;
  asks: boolean;
  oneAtATime: boolean;
}

export function batchRulesOf(phase: Phase, rules: Rules): BatchRules {
  const policy = approvalPolicyOf(phase, rules);
  // Approvals are on the chart only where a call can be asked about or refused (by a rule or a hook); a call waits
  // only where an ask rule, a default of ask, or a preToolUse hook for one of the phase's tools can ask.
  return {
    approves: policyCanStop(policy) || rules.hooks.preToolUse.length > 0,
    asks: policyCanAsk(policy) || rules.hooks.preToolUse.some((hook) => hookMayMatch(hook.tools, rules)),
    oneAtATime: rules.hooks.postToolUse.length > 0,
  };
}

/** Whether a hook's tool pattern may match a call: a tool of the run, or an MCP tool (known only at run time). */
function hookMayMatch(pattern: string, rules: Rules): boolean {
  // Any tool of the run: the model may call one its phase refuses, and the hooks judge it before the refusal.
  const matches = wildcard(pattern);
  if (rules.tools.enabled.some((tool) => matches.test(tool))) return true;
  const servers = Object.keys(rules.mcp.servers).length > 0 || rules.mcp.projectConfig;
  return servers && matches.test(`${MCP_TOOL_PREFIX}server__tool`);
}

/**
 * The calls the tool actor runs now: from the cursor up to the next call that
 * waits for an answer; with postToolUse hooks one call, so its hooks run
 * before the next call does.
 */
export function toolBatch(context: HarnessContext, batch: BatchRules): ToolCall[] {
  const end = batch.approves ? context.approvals.runUntil : context.calls.length;
  return context.calls.slice(context.cursor, batch.oneAtATime ? Math.min(end, context.cursor + 1) : end);
}
