import { namedGuardLabel } from '../../lib/guard-labels.js';
import type { Condition } from '../../rules/schema.js';
import { BUILT_IN_GUARDS, guardParams, isBuiltInGuard } from './catalogue.js';
import type { GuardView } from './guard-view.js';
import { type GuardResult, guardHolds } from './registry.js';

/** How a guard a condition names is judged: its result (a reason may come with it) and the machine's name for it. */
export type GuardLookup = (name: string) => { test(view: GuardView, params: Record<string, unknown>): GuardResult; label: string } | undefined;

/** The built-in guards, as a lookup (a rules module's guards are put in front of it). */
export const builtInLookup: GuardLookup = (name) =>
  isBuiltInGuard(name)
    ? {
        label: name,
        test: (view, params) => {
          const spec = BUILT_IN_GUARDS[name];
          const parsed = guardParams(name, params) as never;
          return spec.test(view, parsed) ? true : { holds: false, ...(spec.why ? { reason: spec.why(view, parsed) } : {}) };
        },
      }
    : undefined;

/** A condition's guard parameters: its keys besides the forms and the exit's own fields. */
function paramsOf(condition: Condition, ownKeys: ReadonlySet<string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(condition).filter(([key]) => !ownKeys.has(key)));
}

/**
 * Why a condition does not hold, in words, or null when it holds: the
 * reasons of the parts that failed (every failing part of an `all`; each
 * alternative of an `any`), a guard's own reason when it gives one, else the
 * guard named with its parameters. `reasons` replaces a guard's reason (the
 * gate's test guard words its own with the commands still to pass).
 *
 * @example explainCondition({ all: [{ guard: 'todoComplete' }] }, view, builtInLookup, keys) // '1 todo item open: write tests'
 */
export function explainCondition(
  condition: Condition,
  view: GuardView,
  lookup: GuardLookup,
  ownKeys: ReadonlySet<string>,
  reasons: Readonly<Record<string, () => string>> = {},
): string | null {
  if (condition.all) {
    const failed = condition.all.map((part) => explainCondition(part, view, lookup, ownKeys, reasons)).filter((why) => why !== null);
    return failed.length > 0 ? failed.join('; ') : null;
  }
  if (condition.any) {
    const failed = condition.any.map((part) => explainCondition(part, view, lookup, ownKeys, reasons));
    return failed.some((why) => why === null) ? null : `none of these holds: ${failed.map((why) => `(${why})`).join(' or ')}`;
  }
  if (condition.not) {
    return explainCondition(condition.not, view, lookup, ownKeys, reasons) === null ? `${conditionLabel(condition.not, ownKeys)} holds` : null;
  }
  const name = condition.guard!;
  const guard = lookup(name);
  // Stryker disable next-line ConditionalExpression: rules-check refuses a condition naming no guard it knows before a machine is built
  if (!guard) return `${name} is not a guard`;
  const params = paramsOf(condition, ownKeys);
  const result = guard.test(view, params);
  if (guardHolds(result)) return null;
  const given = typeof result === 'object' ? result.reason : undefined;
  const own = reasons[name];
  if (own && guard.label === name) return own();
  const shown = namedGuardLabel('', params);
  return given?.trim() || `the guard ${guard.label} did not hold${shown ? ` ${shown}` : ''}`;
}

/** A condition as a short label: `todoComplete`, `all(testsPassedSinceLastEdit, todoComplete)`. */
export function conditionLabel(condition: Condition, ownKeys: ReadonlySet<string>): string {
  if (condition.all) return `all(${condition.all.map((part) => conditionLabel(part, ownKeys)).join(', ')})`;
  if (condition.any) return `any(${condition.any.map((part) => conditionLabel(part, ownKeys)).join(', ')})`;
  if (condition.not) return `not(${conditionLabel(condition.not, ownKeys)})`;
  return namedGuardLabel(condition.guard!, paramsOf(condition, ownKeys));
}
