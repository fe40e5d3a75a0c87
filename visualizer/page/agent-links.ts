import { type Entry, num, obj, text } from './entries.js';
import { count } from './format.js';

/** One delegated child as the parent's trace tells it: its last `agent` line's story, and where its page is. */
export interface ChildSummary {
  agent: string;
  /** The child's id in its parent: `<step>:<call>:<task>`. */
  child: string;
  callId: string;
  depth: number;
  /** Relative to the parent's page: `agents/<dir>/` (empty when the line names no run directory). */
  href: string;
  /** `running`, `refused`, or how it ended (`done`, `step_limit`, `interrupted`, …). */
  status: string;
  caps: { steps: number | null; tokens: number | null; costUsd: number | null };
  steps: number | null;
  tokens: number | null;
  reason: string;
}

/**
 * The children a run delegated to, one per child id in the order they started, each as its latest `agent` line
 * leaves it (a resumed child's end line after its resume line). `callId` keeps only the children of one `delegate` call.
 *
 * @example childSummaries(entries, 'call_1')[0].href // 'agents/2-1-0-explorer/'
 */
export function childSummaries(entries: Entry[], callId?: string): ChildSummary[] {
  const byChild = new Map<string, ChildSummary>();
  for (const entry of entries) {
    if (entry.kind !== 'agent' || (callId !== undefined && text(entry.data, 'callId') !== callId)) continue;
    const id = text(entry.data, 'child');
    const summary = withLine(byChild.get(id), entry.data);
    byChild.set(id, summary);
  }
  return [...byChild.values()];
}

function withLine(before: ChildSummary | undefined, data: Record<string, unknown>): ChildSummary {
  const caps = obj(data, 'caps');
  const event = text(data, 'event');
  const usage = obj(data, 'usage');
  const tokens = (num(usage, 'promptTokens') ?? 0) + (num(usage, 'completionTokens') ?? 0);
  return {
    agent: text(data, 'agent'),
    child: text(data, 'child'),
    callId: text(data, 'callId'),
    depth: num(data, 'depth') ?? 1,
    href: childHref(text(data, 'runDir')),
    status: event === 'end' ? text(data, 'status') || 'ended' : event === 'refused' ? 'refused' : 'running',
    caps: data.caps ? { steps: num(caps, 'steps'), tokens: num(caps, 'tokens'), costUsd: num(caps, 'costUsd') } : (before?.caps ?? noCaps()),
    steps: num(data, 'steps') ?? before?.steps ?? null,
    tokens: data.usage ? tokens : (before?.tokens ?? null),
    reason: text(data, 'reason'),
  };
}

function noCaps(): ChildSummary['caps'] {
  return { steps: null, tokens: null, costUsd: null };
}

/** The child's page beside its parent's: the last folder of its run directory, under `agents/`. */
function childHref(runDir: string): string {
  const name = runDir.split(/[\\/]/).filter(Boolean).pop() ?? '';
  return /^[\w-]+$/.test(name) ? `agents/${name}/` : '';
}

/**
 * A child's budget use in a few words: steps of its cap, tokens (of its cap when it had one), and how it stands.
 *
 * @example budgetUse(summary) // 'explorer: 3 of 6 steps, 1,204 tokens · step_limit'
 */
export function budgetUse(summary: ChildSummary): string {
  if (summary.status === 'refused') return `${summary.agent}: not started · ${summary.reason}`;
  const steps = summary.caps.steps !== null ? `${summary.steps ?? 0} of ${summary.caps.steps} steps` : `${summary.steps ?? 0} steps`;
  const tokens = summary.tokens === null ? '' : `, ${count(summary.tokens)}${summary.caps.tokens !== null ? ` of ${count(summary.caps.tokens)}` : ''} tokens`;
  return `${summary.agent}: ${summary.status === 'running' ? `cap ${summary.caps.steps ?? '?'} steps` : steps + tokens} · ${summary.status}`;
}

/** The one line an `agent` trace line reads as in the event list. */
export function agentText(data: Record<string, unknown>): string {
  const agent = text(data, 'agent');
  const caps = obj(data, 'caps');
  switch (text(data, 'event')) {
    case 'start':
      return `${agent} started (cap ${num(caps, 'steps') ?? '?'} steps${num(caps, 'tokens') !== null ? `, ${count(num(caps, 'tokens') ?? 0)} tokens` : ''})`;
    case 'resume':
      return `${agent} resumed from its saved state`;
    case 'refused':
      return `${agent} not started: ${text(data, 'reason')}`;
    default:
      return `${agent} ended ${text(data, 'status')} after ${num(data, 'steps') ?? '?'} steps`;
  }
}

/** A child's page links back to its parent's: the start line names the parent; its page is two folders up. */
export function parentLink(start: Entry | null): { href: string; text: string } | null {
  const parent = start ? obj(start.data, 'parent') : {};
  const agent = text(parent, 'agent');
  if (!agent) return null;
  return { href: '../../', text: `← parent run (this is agent “${agent}”, depth ${num(parent, 'depth') ?? 1})` };
}
