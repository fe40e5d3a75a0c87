import { and } from 'xstate';
import type { Rules } from '../../rules/schema.js';
import { isBuiltInGuard } from '../guards/catalogue.js';
import { harnessSetup } from '../harness-setup.js';
import { liveStallRules, stallCanEnd } from '../phase-exits.js';
import { nudgeText } from '../stall/review.js';
import { at, named, type PhasePlan } from './plan.js';

/** `review`: the stall detector, from the phase's live stall rules; a reply without a tool call gets a reminder. */
export function reviewState(plan: PhasePlan) {
  const { phase, rules, naming } = plan;
  const live = liveStallRules(phase, rules);
  const reminder = {
    guard: 'repliedWithoutTools',
    target: 'route',
    actions: { type: 'remindToUseTools', params: { message: rules.messages.noToolCall } },
  } as const;
  if (live.length === 0) {
    return harnessSetup.createStateConfig({
      description: rules.stall.enabled
        ? "No stall rule can fire with this phase's tools; a reply without a tool call gets a reminder."
        : 'Stall detector off; a reply without a tool call gets a reminder.',
      always: [reminder, { target: 'route' }],
    });
  }
  const { maxNudges } = rules.stall;
  const builtIn = live.filter((rule) => isBuiltInGuard(rule.guard) && naming.guard(rule.guard) === rule.guard);
  const custom = live.filter((rule) => !builtIn.includes(rule));
  const explain = { type: 'explainStall', params: { maxNudges, rules: live.map((rule) => ({ rule: rule.guard, limit: rule.limit })) } } as const;
  // A stall ends the run only after maxNudges nudges, one a turn: a phase with fewer steps than that never sees it.
  const ends = stallCanEnd(phase, rules);
  const limits = Object.fromEntries(live.map((rule) => [rule.guard, rule.limit]));
  return harnessSetup.createStateConfig({
    description: ends
      ? `The stall detector: nudge after all tool results; a stall that holds again after ${maxNudges} nudges with nothing new ends the run.`
      : 'The stall detector: nudge after all tool results (stall.onPersist is nudge: a stall never ends the run).',
    always: [
      ...(ends && builtIn.length > 0
        ? [
            {
              guard: { type: 'stallPersists', params: { maxNudges, rules: builtIn.map((rule) => ({ rule: rule.guard, limit: rule.limit })) } },
              target: at('stalled'),
              actions: explain,
            } as const,
          ]
        : []),
      ...(ends
        ? custom.map((rule) => ({
            guard: named(
              and([
                { type: 'nudgedOut', params: { rule: rule.guard, maxNudges } },
                { type: naming.guard(rule.guard), params: stallParams(rule) },
                // and()/or() are typed by one setup()'s guards; rule-built references are checked by rules-check before the machine is built.
              ] as never),
            ),
            target: at('stalled'),
            actions: explain,
          }))
        : []),
      ...live.map(
        (rule) =>
          ({
            guard: named({ type: naming.guard(rule.guard), params: stallParams(rule) }),
            target: 'route',
            actions: { type: 'nudge', params: { rule: rule.guard, limit: rule.limit, message: nudgeText(phase, rule, rules), maxNudges, limits } },
          }) as const,
      ),
      reminder,
      { target: 'route' },
    ],
  });
}

function stallParams({ guard: _guard, message: _message, ...params }: Rules['stall']['rules'][number]): Record<string, unknown> {
  return params;
}
