import { defaultRules, type Rules, rulesSchema } from 'rein/rules';

/**
 * The rules of a benchmark run: `steps` steps of one tool (and finish), no
 * plan phase so every step has the same shape, an hour of time; `stall: false`
 * for runs whose every result is new but looks alike to the detector, and a
 * context window of its own where the bench varies it.
 *
 * @example benchRules(1000, 'note') // the overhead bench's rules
 */
export function benchRules(steps: number, tool: string, options: { stall?: boolean; windowTokens?: number } = {}): Rules {
  const base = defaultRules();
  return rulesSchema.parse({
    ...base,
    budgets: { ...base.budgets, maxSteps: steps, maxSeconds: 3600 },
    tools: { ...base.tools, enabled: [tool, 'finish'] },
    phases: { ...base.phases, plan: { ...base.phases.plan, enabled: false } },
    ...(options.stall === false ? { stall: { ...base.stall, enabled: false } } : {}),
    ...(options.windowTokens !== undefined ? { context: { ...base.context, windowTokens: options.windowTokens } } : {}),
  });
}
