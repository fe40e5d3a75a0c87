import { type CallUsage, isEvent, type TraceRecord } from 'rein/formats';
import { costOf } from 'rein/machines';
import type { Price } from 'rein/rules';
import { readJsonLines } from 'rein/run';

/** What a run's trace says, whole or cut short by a kill. */
interface TraceMetrics {
  steps: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  costUsd: number;
  stallFirings: number;
  gateRefusals: number;
  contextElisions: number;
  contextSummaries: number;
  /** Calls the approval rules asked about, and calls denied (by a rule, a remembered decision, the policy or an answer). */
  approvalAsks: number;
  approvalDenials: number;
  /** The `end` line's status and reason, when the run got that far. */
  end: { status: string; reason: string } | null;
  /** A run that delegated: its usage split by agent (`main` first), from the `end` line. */
  agents?: AgentMetrics[];
}

/** One agent's share of a run: its runs (children started), steps, tokens and cost. */
interface AgentMetrics {
  agent: string;
  runs: number;
  steps: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
}

/**
 * Counts from a trace: model usage (from the `end` line when present, else
 * summed over `model` lines and costed at `price`), stall firings, gate
 * refusals, context elisions and summaries.
 *
 * @example metricsFromTrace(readJsonLines(path).values, NOMINAL_PRICE).gateRefusals
 */
export function metricsFromTrace(lines: readonly TraceRecord[], price: Price | null): TraceMetrics {
  const metrics: TraceMetrics = {
    steps: 0,
    promptTokens: 0,
    completionTokens: 0,
    cachedTokens: 0,
    costUsd: 0,
    stallFirings: 0,
    gateRefusals: 0,
    contextElisions: 0,
    contextSummaries: 0,
    approvalAsks: 0,
    approvalDenials: 0,
    end: null,
  };
  for (const line of lines) {
    if (isEvent(line, 'model')) addCall(metrics, line, price);
    else if (isEvent(line, 'stall')) metrics.stallFirings++;
    else if (isEvent(line, 'finish') && line.allowed === false) metrics.gateRefusals++;
    else if (isEvent(line, 'context') && line.action === 'elided') metrics.contextElisions++;
    else if (isEvent(line, 'context') && line.action === 'summarized') metrics.contextSummaries++;
    else if (isEvent(line, 'approval_ask')) metrics.approvalAsks++;
    else if (isEvent(line, 'approval_decision') && line.verdict === 'deny') metrics.approvalDenials++;
    else if (isEvent(line, 'end')) applyEnd(metrics, line);
  }
  return metrics;
}

/** `metricsFromTrace` for a trace file; a missing file gives zeros. */
export function metricsFromTraceFile(path: string, price: Price | null): TraceMetrics {
  return metricsFromTrace(readJsonLines<TraceRecord>(path).values, price);
}

function addCall(metrics: TraceMetrics, line: TraceRecord & { step?: unknown; usage?: CallUsage }, price: Price | null): void {
  const usage = line.usage;
  metrics.steps = Math.max(metrics.steps, typeof line.step === 'number' ? line.step : metrics.steps + 1);
  if (!usage) return;
  metrics.promptTokens += usage.promptTokens;
  metrics.completionTokens += usage.completionTokens;
  metrics.cachedTokens += usage.cachedTokens;
  if (price) metrics.costUsd += costOf(usage, price);
}

function applyEnd(
  metrics: TraceMetrics,
  line: TraceRecord & { steps?: unknown; usage?: CallUsage & { costUsd?: number }; status?: unknown; reason?: unknown },
): void {
  const usage = line.usage;
  if (typeof line.steps === 'number') metrics.steps = line.steps;
  if (usage) {
    metrics.promptTokens = usage.promptTokens;
    metrics.completionTokens = usage.completionTokens;
    metrics.cachedTokens = usage.cachedTokens;
    if (typeof usage.costUsd === 'number') metrics.costUsd = usage.costUsd;
  }
  metrics.end = { status: String(line.status), reason: String(line.reason ?? '') };
  const agents = agentsOf((line as { agents?: unknown }).agents);
  if (agents.length > 0) metrics.agents = agents;
}

/** The `end` line's per-agent split, each entry checked (a trace is read as written by any rein version). */
function agentsOf(value: unknown): AgentMetrics[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry: { agent?: unknown; runs?: unknown; steps?: unknown; usage?: Partial<Record<string, unknown>> }) => {
    if (typeof entry?.agent !== 'string') return [];
    const number = (field: unknown) => (typeof field === 'number' && Number.isFinite(field) ? field : 0);
    return [
      {
        agent: entry.agent,
        runs: number(entry.runs),
        steps: number(entry.steps),
        promptTokens: number(entry.usage?.promptTokens),
        completionTokens: number(entry.usage?.completionTokens),
        costUsd: number(entry.usage?.costUsd),
      },
    ];
  });
}
