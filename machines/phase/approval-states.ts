import type { ApproverInput } from '../actor-contracts.js';
import { harnessSetup } from '../harness-setup.js';
import type { PhasePlan } from './plan.js';

/**
 * `screen`, when approval rules or preToolUse hooks judge calls in this phase: each call is judged (deny, remembered,
 * ask, allow, default) and denied ones are answered with the denial.
 */
export function screenStates(plan: PhasePlan) {
  const { policy, rules } = plan;
  return {
    screen: harnessSetup.createStateConfig({
      description: plan.asks
        ? 'Judge the next calls by the approval rules (deny, remembered, ask, allow, default): denied ones are answered with the denial, the first that needs an answer waits.'
        : 'Judge the next calls by the approval rules (deny, remembered, allow, default): denied ones are answered with the denial; no rule here asks, so none waits.',
      entry: {
        type: 'screenCalls',
        params: {
          policy,
          oneAtATime: plan.hooks.preToolUse,
          asks: plan.asks,
          // The gate's own checks are never asked about (a deny rule still refuses them).
          verification: rules.verification.checks.flatMap((check) => (check.command ? [check.command] : [])),
        },
      },
      always: [...(plan.asks ? [{ guard: 'approvalPending', target: 'awaitingApproval' } as const] : []), { target: 'act' }],
    }),
  };
}

/**
 * `awaitingApproval`, where a call can wait for an answer (an ask rule, a default of ask, a preToolUse hook that may
 * ask): its request saved first, then the approver waits for an answer.
 */
export function awaitingApprovalStates(plan: PhasePlan) {
  const { rules } = plan;
  return {
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
