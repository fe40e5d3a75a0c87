import type { Usage } from '../../lib/usage.js';
import type { Update } from '../update.js';

/** What one child (one delegated task) has been charged to its parent so far. */
interface ChildCharge {
  agent: string;
  /** Steps of the child and of its own children. */
  steps: number;
  usage: Usage;
  /** How it ended, once it has: with `seq`, the parent's tool results folded by then (an edit after it is newer). */
  ended?: ChildEnding & { seq: number };
}

/** A child's end as its parent's guards read it: its verdict is the first word of its report (approve or reject). */
export interface ChildEnding {
  status: string;
  verdict: 'approve' | 'reject' | null;
  /** Its report, cut short: the reasons a refusal quotes. */
  report: string;
}

/** What the run's children have spent, charged to the run as they spent it (machines/delegation/charge.ts). */
export interface Delegated {
  /** Steps all children took: the step budget counts them with the run's own. */
  steps: number;
  /** By the child's id (`<step>:<call>:<task>`), so a child seen again after a resume is never charged twice. */
  children: Record<string, ChildCharge>;
}

/** A child's running totals, sent to its parent each time they grow. */
export interface ChargeEvent {
  type: 'delegation.charge';
  child: string;
  agent: string;
  steps: number;
  usage: Usage;
  ended?: ChildEnding;
}

/**
 * Charges a child's spending to its parent at once: the event carries the child's totals, and only what they grew by
 * since the last charge is added to the parent's usage and delegated steps, so the parent's budget guards see the
 * whole tree. Totals that went down (a child resumed from a checkpoint before its last charge) add nothing.
 */
export function chargeUpdate(context: { usage: Usage; delegated?: Delegated; facts: { seq: number } }, event: ChargeEvent): Update {
  const delegated = context.delegated ?? { steps: 0, children: {} };
  const before = delegated.children[event.child];
  const grown = (now: number, then: number | undefined) => Math.max(0, now - (then ?? 0));
  const steps = grown(event.steps, before?.steps);
  const delta: Usage = {
    calls: grown(event.usage.calls, before?.usage.calls),
    promptTokens: grown(event.usage.promptTokens, before?.usage.promptTokens),
    completionTokens: grown(event.usage.completionTokens, before?.usage.completionTokens),
    cachedTokens: grown(event.usage.cachedTokens, before?.usage.cachedTokens),
    costUsd: grown(event.usage.costUsd, before?.usage.costUsd),
  };
  const charged: ChildCharge = {
    agent: event.agent,
    steps: (before?.steps ?? 0) + steps,
    usage: addUsages(before?.usage, delta),
    ...(event.ended ? { ended: { ...event.ended, seq: context.facts.seq } } : before?.ended ? { ended: before.ended } : {}),
  };
  return {
    context: {
      usage: addUsages(context.usage, delta),
      delegated: { steps: delegated.steps + steps, children: { ...delegated.children, [event.child]: charged } },
    },
  };
}

function addUsages(a: Usage | undefined, b: Usage): Usage {
  if (!a) return b;
  return {
    calls: a.calls + b.calls,
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    costUsd: a.costUsd + b.costUsd,
  };
}

/** One agent's share of a run's usage: the children run under its name, their steps and usage. */
export interface AgentUsage {
  agent: string;
  runs: number;
  steps: number;
  usage: Usage;
}

/**
 * A run's usage split by agent: `main` (the run itself: its total less what its children were charged), then each
 * agent in the order it first ran. The parts add up to the run's total.
 */
export function usageByAgent(context: { step: number; usage: Usage; delegated?: Delegated }): AgentUsage[] {
  const byName = new Map<string, AgentUsage>();
  for (const child of Object.values(context.delegated?.children ?? {})) {
    const entry = byName.get(child.agent) ?? {
      agent: child.agent,
      runs: 0,
      steps: 0,
      usage: { calls: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, costUsd: 0 },
    };
    byName.set(child.agent, { agent: child.agent, runs: entry.runs + 1, steps: entry.steps + child.steps, usage: addUsages(entry.usage, child.usage) });
  }
  const children = [...byName.values()];
  const spentByChildren = children.reduce((sum, entry) => addUsages(sum, entry.usage), undefined as Usage | undefined);
  const own: Usage = spentByChildren
    ? {
        calls: context.usage.calls - spentByChildren.calls,
        promptTokens: context.usage.promptTokens - spentByChildren.promptTokens,
        completionTokens: context.usage.completionTokens - spentByChildren.completionTokens,
        cachedTokens: context.usage.cachedTokens - spentByChildren.cachedTokens,
        costUsd: Math.max(0, context.usage.costUsd - spentByChildren.costUsd),
      }
    : context.usage;
  return [{ agent: 'main', runs: 1, steps: context.step, usage: own }, ...children];
}

/** Words a report may begin with to give a verdict (any case): the reviewer recipe asks for one of them. */
const APPROVE = /^\W*(approve[ds]?|lgtm|accept(ed)?)\b/i;
const REJECT = /^\W*(reject(ed)?|request(ed)? changes|changes requested)\b/i;

/** A report's verdict: approve, reject, or none when its first word is neither. */
export function verdictOf(report: string): ChildEnding['verdict'] {
  if (APPROVE.test(report)) return 'approve';
  if (REJECT.test(report)) return 'reject';
  return null;
}

/** The latest ended child of each agent, as the guards read it: its verdict, its report, and whether it came after the last edit. */
export function latestReviews(context: { delegated?: Delegated; facts: { lastEditSeq: number } }) {
  const reviews: Record<string, { verdict: ChildEnding['verdict']; report: string; status: string; sinceEdit: boolean }> = {};
  for (const child of Object.values(context.delegated?.children ?? {})) {
    if (!child.ended) continue;
    const { verdict, report, status, seq } = child.ended;
    reviews[child.agent] = { verdict, report, status, sinceEdit: seq >= context.facts.lastEditSeq };
  }
  return reviews;
}
