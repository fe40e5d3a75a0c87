import { costOf } from '../machines/budget.js';
import type { Price } from '../rules/schema.js';
import { readJsonLines } from '../run/jsonl.js';
import type { TraceLine } from '../run/trace.js';

/** What a run's trace says, whole or cut short by a kill. */
export interface TraceMetrics {
  steps: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  costUsd: number;
  stallFirings: number;
  gateRefusals: number;
  contextElisions: number;
  contextSummaries: number;
  /** The `end` line's status and reason, when the run got that far. */
  end: { status: string; reason: string } | null;
}

interface Usage { promptTokens: number; completionTokens: number; cachedTokens: number; costUsd?: number }

/**
 * Counts from a trace: model usage (from the `end` line when present, else
 * summed over `model` lines and costed at `price`), stall firings, gate
 * refusals, context elisions and summaries.
 *
 * @example metricsFromTrace(readJsonLines(path).values, NOMINAL_PRICE).gateRefusals
 */
export function metricsFromTrace(lines: readonly TraceLine[], price: Price | null): TraceMetrics {
  const metrics: TraceMetrics = {
    steps: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, costUsd: 0,
    stallFirings: 0, gateRefusals: 0, contextElisions: 0, contextSummaries: 0, end: null,
  };
  for (const line of lines) {
    if (line.kind === 'model') addCall(metrics, line, price);
    else if (line.kind === 'stall') metrics.stallFirings++;
    else if (line.kind === 'finish' && line.allowed === false) metrics.gateRefusals++;
    else if (line.kind === 'context' && line.action === 'elided') metrics.contextElisions++;
    else if (line.kind === 'context' && line.action === 'summarized') metrics.contextSummaries++;
    else if (line.kind === 'end') applyEnd(metrics, line);
  }
  return metrics;
}

/** `metricsFromTrace` for a trace file; a missing file gives zeros. */
export function metricsFromTraceFile(path: string, price: Price | null): TraceMetrics {
  return metricsFromTrace(readJsonLines<TraceLine>(path).values, price);
}

function addCall(metrics: TraceMetrics, line: TraceLine, price: Price | null): void {
  const usage = line.usage as Usage | undefined;
  metrics.steps = Math.max(metrics.steps, typeof line.step === 'number' ? line.step : metrics.steps + 1);
  if (!usage) return;
  metrics.promptTokens += usage.promptTokens;
  metrics.completionTokens += usage.completionTokens;
  metrics.cachedTokens += usage.cachedTokens;
  if (price) metrics.costUsd += costOf(usage, price);
}

function applyEnd(metrics: TraceMetrics, line: TraceLine): void {
  const usage = line.usage as Usage | undefined;
  if (typeof line.steps === 'number') metrics.steps = line.steps;
  if (usage) {
    metrics.promptTokens = usage.promptTokens;
    metrics.completionTokens = usage.completionTokens;
    metrics.cachedTokens = usage.cachedTokens;
    if (typeof usage.costUsd === 'number') metrics.costUsd = usage.costUsd;
  }
  metrics.end = { status: String(line.status), reason: String(line.reason ?? '') };
}
