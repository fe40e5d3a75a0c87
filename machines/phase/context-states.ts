import type { SummaryInput } from '../actor-contracts.js';
import { capReason } from '../budgets.js';
import { harnessSetup } from '../harness-setup.js';
import { at, type PhasePlan } from './plan.js';

/** `summarize`, when the context manager summarizes (stage 2): folds the middle of the view into a summary. */
export function summarizeStates() {
  return {
    summarize: harnessSetup.createStateConfig({
      description: 'Stage 2: fold the middle of the view into a summary.',
      invoke: {
        id: 'summarizer',
        src: 'summarizer',
        input: ({ context }): SummaryInput => ({ contextState: context.contextState, todo: context.facts.todo }),
        onDone: [
          {
            guard: { type: 'summaryShrank', params: ({ event }) => ({ output: event.output }) },
            target: 'compact',
            actions: { type: 'applySummary', params: ({ event }) => ({ output: event.output }) },
          },
          { target: 'compact', actions: { type: 'countSummaryFailure', params: { error: 'the summary did not shrink the view' } } },
        ],
        onError: { target: 'compact', actions: { type: 'countSummaryFailure', params: ({ event }) => ({ error: event.error }) } },
      },
    }),
  };
}

/** `checkBudget`, with a token or cost cap: stop before the call that would exceed it. */
export function budgetCheckStates(plan: PhasePlan) {
  const { caps } = plan;
  return {
    checkBudget: harnessSetup.createStateConfig({
      description: 'Stop before the call that would exceed the token or cost budget.',
      always: [
        { guard: { type: 'budgetSpent', params: { caps } }, target: at('budget'), actions: { type: 'explainEnd', params: { reason: capReason(caps) } } },
        { target: 'think' },
      ],
    }),
  };
}
