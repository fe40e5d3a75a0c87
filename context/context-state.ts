import { type CapSteps, NO_CAPS } from './elision.js';

/** The record range a pending summary folds: decided by the context manager, done by the summarizer. */
interface FoldRange {
  from: number;
  through: number;
}

/** How a summary opens in the view, so the model knows it stands for earlier work. */
export const SUMMARY_HEADER = '[Summary of earlier work]';

/** A summary that stands in for the record up to and including `through`. */
export interface SummaryNote {
  text: string;
  through: number;
}

/**
 * What the context manager has decided so far: small, plain data, kept in the
 * machine context so it is persisted with the snapshot and a resumed run
 * rebuilds the same view from the record.
 */
export interface ContextState {
  /** Bumped on every change; the view builder rebuilds only when it moves. */
  version: number;
  caps: CapSteps;
  summary: SummaryNote | null;
  /** Calibrated from the provider's reported prompt_tokens. */
  charsPerToken: number;
  /**
   * The provider's prompt_tokens over rein's estimate for the same request, from the last reply
   * that reported it: tool schemas, message framing and the tokenizer, all in one factor. Until a
   * reply has reported it, the caps assume a dense tokenizer.
   */
  reportedRatio?: number;
  compactions: number;
  summaries: number;
  summaryFailures: number;
  /** A smaller window than the rules say, learnt from the provider rejecting a prompt as too long. */
  windowCap?: number;
  /** The view's size in characters right after the last compaction, at state `version`: the base the next one grows from. */
  settled?: { version: number; chars: number };
  /** What the summary the manager asked for folds. */
  fold?: FoldRange;
}

export function initialContextState(charsPerToken: number): ContextState {
  return { version: 0, caps: NO_CAPS, summary: null, charsPerToken, compactions: 0, summaries: 0, summaryFailures: 0 };
}
