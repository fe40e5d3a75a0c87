/**
 * Token and cost figures of a run: one type for the machine's totals, the
 * trace's `end` line, eval records and the visualizer's gauges.
 */
export interface Usage {
  /** Model calls made. */
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens the provider reported as served from its cache. */
  cachedTokens: number;
  costUsd: number;
}

/** One model call's token counts, as the provider reports them. */
export interface CallUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
}

export const NO_USAGE: Usage = { calls: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, costUsd: 0 };
