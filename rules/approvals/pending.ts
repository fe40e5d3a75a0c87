import type { RememberScope } from './remembered.js';

/** Who answered an approval: a person (terminal, page, `rein approve`), a hook, the headless policy, or the clock. */
export const DECIDERS = ['terminal', 'page', 'command', 'hook', 'policy', 'timeout'] as const;
export type Decider = (typeof DECIDERS)[number];

/** A call waiting for an approval: saved in the run's state before anyone is asked. */
export interface PendingApproval {
  callId: string;
  tool: string;
  /** The arguments as the model sent them (parsed from JSON when they are JSON). */
  args: unknown;
  /** The hash the answer must carry (rules/approvals/call-facts.ts argsHash). */
  argsHash: string;
  /** Why it was asked: the rule that matched, or the default. */
  reason: string;
  phase: string;
  step: number;
}

/** An answer to a pending approval, bound to the call's id and its arguments' hash. */
export interface ApprovalDecision {
  callId: string;
  argsHash: string;
  verdict: 'allow' | 'deny';
  by: Decider;
  /** What the person said (sent to the model with a denial). */
  message?: string;
  remember?: RememberScope;
  /** Milliseconds from the ask to the answer. */
  waitedMs?: number;
}

/** Whether an answer is for exactly this pending call: the same id and the same arguments' hash. */
export function decisionFits(pending: PendingApproval | null, decision: Pick<ApprovalDecision, 'callId' | 'argsHash'>): boolean {
  return pending !== null && decision.callId === pending.callId && decision.argsHash === pending.argsHash;
}

/** The tool result a denied call gets instead of running: the model reads why, and the run goes on. */
export function denialText(source: string, message?: string): string {
  const said = message?.trim() ? ` They said: ${message.trim()}` : '';
  return `Tool error: this call was not run: it was denied (${source}).${said} Do something else, or ask for another way.`;
}
