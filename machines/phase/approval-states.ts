import type { ApproverInput } from '../actor-contracts.js';
import { harnessSetup } from '../harness-setup.js';
import type { PhasePlan } from './plan.js';

/**
 * `screen` and `awaitingApproval`, when approval rules can hold a call in this phase: each call is judged (deny,
 * remembered, ask, allow, default), and one that needs an answer waits for it, its request saved first.
 */
export function approvalStates(plan: PhasePlan) {
  const { rules, policy } = plan;
  return {
    screen: harnessSetup.createStateConfig({
      description:
        'Judge the next calls by the approval rules (deny, remembered, ask, allow, default): denied ones are answered with the denial, the first that needs an answer waits.',
      entry: {
        type: 'screenCalls',
        params: {
          policy,
          oneAtATime: plan.hooks.preToolUse,
          verification: rules.verification.checks.flatMap((check) => (check.command ? [check.command] : [])),
        },
      },
      always: [{ guard: 'approvalPending', target: 'awaitingApproval' }, { target: 'act' }],
    }),
    awaitingApproval: harnessSetup.createStateConfig({
      description: `A call waits for an answer (terminal, page, rein approve, a hook or the headless policy); the request is saved first, so a killed run waits again on resume. No answer in ${rules.approvals.timeoutSeconds} s counts as deny.`,
      // The pending request is in the saved state before anyone is asked.
      tags: ['checkpoint'],
      invoke: {
        id: 'approver',
        src: 'approver',
        // Stryker disable next-line all: awaitingApproval is entered only when screen set a pending call (approvalPending)
        input: ({ context }): ApproverInput => ({ pending: context.approvals.pending!, timeoutMs: rules.approvals.timeoutSeconds * 1000 }),
        onDone: [
          {
            guard: { type: 'answerFitsPending', params: ({ event }) => ({ decision: event.output }) },
            target: 'screen',
            actions: { type: 'recordAnswer', params: ({ event }) => ({ decision: event.output }) },
          },
          { target: 'screen', actions: { type: 'refuseMismatchedAnswer', params: ({ event }) => ({ decision: event.output }) } },
        ],
        onError: { target: 'screen', actions: { type: 'denyWithoutAnswer', params: ({ event }) => ({ error: event.error }) } },
      },
    }),
  };
}
