import { WorkingView } from '../context/working-view.js';
import { ContextLengthError, type ContextOutput, type SummaryOutput } from './actor-contracts.js';
import type { HarnessContext } from './types.js';
import type { Update } from './update.js';

/**
 * Context handling (seed component 4): each turn the context manager builds
 * the working view (eliding old results past the soft threshold); past the
 * hard threshold the summarizer folds the middle; a view that cannot fit
 * ends the run as `budget`; a prompt the provider rejects as too long makes
 * the next pass aim lower, a few times in a row at most.
 */

/** The context manager's view goes to the model; a change to it is traced with its sizes. */
export function storeViewUpdate(context: HarnessContext, output: ContextOutput): Update {
  const update: Update = {
    context: { view: new WorkingView(output.messages), viewTokens: output.tokens, contextState: output.contextState, forceCompaction: false },
  };
  if (output.action !== 'none') {
    update.notes = [
      { kind: 'context', action: output.action, before: output.before, after: { chars: output.chars, tokens: output.tokens }, step: context.step },
    ];
  }
  return update;
}

export function summaryUpdate(context: HarnessContext, output: SummaryOutput): Update {
  const state = context.contextState;
  return {
    context: { contextState: { ...state, summary: output.summary, summaries: state.summaries + 1, version: state.version + 1 } },
    notes: [
      {
        kind: 'context',
        action: 'summarized',
        foldedChars: output.foldedChars,
        summaryChars: output.summaryChars,
        through: output.summary.through,
        step: context.step,
      },
    ],
  };
}

export function summaryFailureUpdate(context: HarnessContext, error: unknown): Update {
  const state = context.contextState;
  return {
    context: { contextState: { ...state, summaryFailures: state.summaryFailures + 1 } },
    notes: [{ kind: 'context', action: 'summary_failed', error: error instanceof Error ? error.message : String(error), step: context.step }],
  };
}

/** Whether a model error is the provider rejecting the prompt as too long, with tries left. */
export function isPromptTooLong(context: HarnessContext, error: unknown, maxRejections: number): boolean {
  return error instanceof ContextLengthError && context.promptRejections < maxRejections;
}

/**
 * The provider's window is smaller than we thought: the size it states, the
 * first time; otherwise (or when that did not help) `share` of the smaller of
 * the rejected prompt and the window learnt so far.
 */
export function rejectionUpdate(context: HarnessContext, params: { error: unknown; share: number }): Update {
  const state = context.contextState;
  const learnt = state.windowCap ?? Number.POSITIVE_INFINITY;
  const stated = params.error instanceof ContextLengthError ? params.error.windowTokens : undefined;
  const guess = stated !== undefined && context.promptRejections === 0 ? stated : Math.floor(Math.min(learnt, context.viewTokens) * params.share);
  const windowCap = Math.max(1, Math.min(learnt, guess));
  return {
    context: { forceCompaction: true, promptRejections: context.promptRejections + 1, contextState: { ...state, windowCap, version: state.version + 1 } },
    notes: [
      {
        kind: 'context',
        action: 'provider_rejected_length',
        rejectedTokens: context.viewTokens,
        windowCap,
        attempt: context.promptRejections + 1,
        step: context.step,
      },
    ],
  };
}
