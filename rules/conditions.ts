import { z } from 'zod';

/**
 * Conditions (exits, the gate): a named guard with its parameters, or
 * all/any/not of conditions. Exits and actions are built on them.
 */

/** Final states an exit rule may end the run in (`done` is only ever reached through the verification gate). */
export const END_TARGETS = ['stalled', 'step_limit', 'budget', 'timeout', 'failed'] as const;
type EndTarget = (typeof END_TARGETS)[number];

/** Whether an exit's target ends the run (else it names a phase). */
export function isEndTarget(target: string): target is EndTarget {
  return (END_TARGETS as readonly string[]).includes(target);
}

/**
 * When an exit may be taken: a named guard with its parameters inline
 * (`{ "guard": "phaseSteps", "min": 3 }`), or `all` / `any` of conditions,
 * or `not` a condition. Exactly one of `guard`, `all`, `any`, `not`.
 */
export interface Condition {
  guard?: string;
  all?: Condition[];
  any?: Condition[];
  not?: Condition;
  [param: string]: unknown;
}

export const CONDITION_FORMS = ['guard', 'all', 'any', 'not'] as const;

function oneForm(value: Record<string, unknown>, context: z.RefinementCtx): void {
  const forms = CONDITION_FORMS.filter((form) => value[form] !== undefined);
  if (forms.length !== 1) {
    context.addIssue({
      code: 'custom',
      message: forms.length === 0 ? 'expected one of "guard", "all", "any" or "not"' : `expected only one of ${forms.map((form) => `"${form}"`).join(', ')}`,
    });
  }
}

const conditionShape = {
  guard: z.string().min(1).optional().describe('Name of a registered guard; its parameters go beside it'),
  get all() {
    return z.array(condition).min(1).optional().describe('Every condition holds');
  },
  get any() {
    return z.array(condition).min(1).optional().describe('At least one condition holds');
  },
  get not() {
    return condition.optional().describe('The condition does not hold');
  },
};
export const condition: z.ZodType<Condition> = z.looseObject(conditionShape).superRefine(oneForm);

/** A named action from the registry, with its parameters: `{ "action": "notify", "text": "Run the linter too." }`. */
export const actionCall = z.looseObject({
  action: z.string().min(1).describe('Name of a registered action (notify, mark, or one registered from a rules module)'),
});
export type ActionCall = z.infer<typeof actionCall>;

export const phaseExit = z
  .looseObject({
    ...conditionShape,
    to: z.string().min(1).describe('Phase entered when the condition holds, or a final state that ends the run (stalled, step_limit, budget, timeout, failed)'),
    actions: z.array(actionCall).optional().describe('Actions run when this exit is taken'),
    settle: z
      .boolean()
      .optional()
      .describe('The entered phase judges the same turn once more (a failing test run that moved build to verify sends it on to fix)'),
    reason: z.string().optional().describe('For an exit that ends the run: the reason the run ended, in the trace and the summary'),
  })
  .superRefine(oneForm);
export type PhaseExitRule = z.infer<typeof phaseExit>;

/** The fields an exit rule has besides a guard's parameters, from the schema itself. */
export const EXIT_FIELDS: readonly string[] = Object.keys(phaseExit.shape);
