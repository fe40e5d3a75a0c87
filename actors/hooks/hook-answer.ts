import { z } from 'zod';
import type { HookMoment } from '../../rules/hooks/schema.js';

/**
 * What a hook prints, in rein's words (`{"decision":"deny","message":…}`, `{"note":…}`) or in Claude Code's
 * (`hookSpecificOutput.permissionDecision`, `permissionDecisionReason`, `additionalContext`, `updatedInput`;
 * the top-level `decision: "block"` with `reason`, and the older `"approve"`; `continue`, `stopReason`,
 * `systemMessage`, `suppressOutput`). Every key is known: anything else is output rein cannot read, which
 * fails closed where a hook decides. The fields follow Claude Code's hooks reference ("JSON output").
 */

const claudeSpecific = z.strictObject({
  hookEventName: z.string().optional(),
  permissionDecision: z.enum(['allow', 'deny', 'ask', 'defer']).optional(),
  permissionDecisionReason: z.string().optional(),
  updatedInput: z.record(z.string(), z.unknown()).optional(),
  additionalContext: z.string().optional(),
});

const hookAnswer = z.strictObject({
  decision: z.enum(['allow', 'deny', 'ask', 'approve', 'block']).optional(),
  message: z.string().optional(),
  note: z.string().optional(),
  reason: z.string().optional(),
  hookSpecificOutput: claudeSpecific.optional(),
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  systemMessage: z.string().optional(),
  suppressOutput: z.boolean().optional(),
});

/** A hook's answer as rein acts on it. */
interface ReadAnswer {
  decision?: 'allow' | 'deny' | 'ask';
  message?: string;
  note?: string;
  updatedInput?: Record<string, unknown>;
}

/** The Claude Code event names a hook may say it answers at each moment (`hookEventName`). */
const EVENT_NAMES: Record<HookMoment, readonly string[]> = {
  preToolUse: ['PreToolUse', 'preToolUse'],
  postToolUse: ['PostToolUse', 'PostToolUseFailure', 'postToolUse'],
  phaseChange: ['phaseChange'],
  beforeFinish: ['Stop', 'beforeFinish'],
  runEnd: ['SessionEnd', 'runEnd'],
};

const STRICTNESS = { allow: 0, ask: 1, deny: 2 } as const;

/**
 * Reads one hook's JSON at a moment: an answer, or the problem that makes it unreadable (an unknown key, a
 * wrong type, an answer for another event, a decision where none is taken).
 *
 * @example readHookAnswer('preToolUse', { hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'no' } }) // { answer: { decision: 'deny', message: 'no' } }
 */
export function readHookAnswer(moment: HookMoment, raw: unknown): { answer: ReadAnswer } | { problem: string } {
  const parsed = hookAnswer.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || (issue?.code === 'unrecognized_keys' ? issue.keys.join(', ') : '');
    return { problem: `stdout is not a hook answer rein can read (${where ? `${where}: ` : ''}${issue?.message})` };
  }
  const out = parsed.data;
  const specific = out.hookSpecificOutput;
  if (specific?.hookEventName !== undefined && !EVENT_NAMES[moment].includes(specific.hookEventName))
    return { problem: `the answer is for ${specific.hookEventName}, but this is ${EVENT_NAMES[moment][0]}` };
  if (moment !== 'preToolUse' && (specific?.permissionDecision !== undefined || specific?.updatedInput !== undefined))
    return { problem: `permissionDecision and updatedInput are answers before a tool call, not at ${EVENT_NAMES[moment][0]}` };
  const decisions = decisionsOf(moment, out);
  const decision = decisions.sort((a, b) => STRICTNESS[b] - STRICTNESS[a])[0];
  const message =
    out.message ?? (decision === 'deny' && out.continue === false ? out.stopReason : undefined) ?? specific?.permissionDecisionReason ?? out.reason;
  // Before the finish, Claude Code's additionalContext keeps the conversation going: it is the reason the finish is refused.
  const finishFeedback = moment === 'beforeFinish' && decision === 'deny' && message === undefined ? specific?.additionalContext : undefined;
  const note = [out.note, moment === 'beforeFinish' ? undefined : specific?.additionalContext].filter((text) => text !== undefined).join('\n');
  const updatedInput = decision === 'deny' || specific?.permissionDecision === 'defer' ? undefined : specific?.updatedInput;
  return {
    answer: {
      ...(decision ? { decision } : {}),
      ...((message ?? finishFeedback) !== undefined ? { message: message ?? finishFeedback } : {}),
      ...(note ? { note } : {}),
      ...(updatedInput ? { updatedInput } : {}),
    },
  };
}

/** Every decision the answer makes, in either dialect; the strictest wins (deny, then ask, then allow). */
function decisionsOf(moment: HookMoment, out: z.output<typeof hookAnswer>): ('allow' | 'deny' | 'ask')[] {
  const decisions: ('allow' | 'deny' | 'ask')[] = [];
  // `continue: false` takes precedence over the event's decision; at the finish it lets the run stop, as in Claude Code.
  if (moment === 'beforeFinish' && out.continue === false) return decisions;
  if (out.decision === 'block') decisions.push('deny');
  else if (out.decision === 'approve') decisions.push('allow');
  else if (out.decision) decisions.push(out.decision);
  const permission = out.hookSpecificOutput?.permissionDecision;
  // `defer` hands the call to whoever answers asks: in rein, a person or the headless policy.
  if (permission) decisions.push(permission === 'defer' ? 'ask' : permission);
  if (moment === 'beforeFinish' && out.hookSpecificOutput?.additionalContext !== undefined) decisions.push('deny');
  // `continue: false` stops Claude Code; before a call rein refuses the call (a run is never ended by a hook).
  if (moment === 'preToolUse' && out.continue === false) decisions.push('deny');
  return decisions;
}
