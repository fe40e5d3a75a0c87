import type { z } from 'zod';
import { UsageError } from '../../lib/errors.js';
import { isBuiltInGuard } from './catalogue.js';
import type { GuardView } from './guard-view.js';

/** Parameters a rule passes to a guard, e.g. `{ "min": 3 }`. */
export type GuardParams = Record<string, unknown>;

/**
 * What a guard returns: whether it holds, or `{ holds: false, reason }` to say
 * why not in words (a gate refusal tells the model the reason).
 */
export type GuardResult = boolean | { holds: boolean; reason?: string };

/** A guard registered from a rules module: a pure predicate over the guard view. */
export type GuardFunction = (view: GuardView, params: GuardParams) => GuardResult;

/** Whether a guard's result means it holds: `{ holds: true }`, or a truthy value that is not an object. */
export function guardHolds(result: GuardResult): boolean {
  // A guard written in plain JavaScript may return any truthy value, as XState's own guards may.
  return typeof result === 'object' && result !== null ? result.holds === true : Boolean(result);
}

/** The long form: a predicate with a summary and parameters for `rein rules guards`, and `override` to replace a built-in. */
export interface GuardDefinition {
  test: GuardFunction;
  summary?: string;
  /** Checked when the rules load, defaults filled in. */
  params?: z.ZodObject;
  /** Required to replace a built-in guard of the same name. */
  override?: boolean;
}

export type GuardRegistry = Record<string, GuardFunction | GuardDefinition>;

/** A registered guard after checking: where it came from, and the name the machine gives it. */
export interface RegisteredGuard {
  name: string;
  test: GuardFunction;
  summary?: string;
  params?: z.ZodObject;
  /** True when it replaces a built-in guard; the chart and trace then call it `<name> (overridden)`. */
  overrides: boolean;
}

/** Guard names the machine uses for its own transitions; a rules file cannot register or replace them. */
export const RESERVED_GUARDS = [
  'stepLimitReached',
  'budgetWarningDue',
  'budgetSpent',
  'contextOverflow',
  'needsSummary',
  'summaryShrank',
  'hasToolCalls',
  'promptTooLong',
  'finishPending',
  'callsRemaining',
  'stallPersists',
  'nudgedOut',
  'repliedWithoutTools',
] as const;

/** The name an overriding guard has in the machine, so the chart and the trace name the guard that actually decided. */
export function overriddenName(name: string): string {
  return `${name} (overridden)`;
}

/**
 * Checks a rules module's guards: each is a function or `{ test, override? }`;
 * a built-in may only be replaced with `override: true`, and the machine's own
 * guards never. Problems are `UsageError`s (exit 2) naming the guard.
 *
 * @example registerGuards({ twoPasses: (view) => view.facts.passingRunsSinceEdit >= 2 }, 'rein.config.mjs')
 */
export function registerGuards(registry: GuardRegistry, source: string): RegisteredGuard[] {
  return Object.entries(registry).map(([name, entry]) => {
    const definition: GuardDefinition | null =
      typeof entry === 'function' ? { test: entry } : typeof entry === 'object' && entry !== null && typeof entry.test === 'function' ? entry : null;
    if (!definition)
      throw new UsageError(`${source}: guards.${name}: expected a function (view, params) => boolean, or { test, summary?, params?, override? }`);
    if ((RESERVED_GUARDS as readonly string[]).includes(name))
      throw new UsageError(`${source}: guards.${name}: "${name}" is one of the machine's own guards and cannot be registered or replaced`);
    const builtIn = isBuiltInGuard(name);
    if (builtIn && definition.override !== true) {
      throw new UsageError(
        `${source}: guards.${name}: a built-in guard has this name. To replace it, say so: { ${name}: { override: true, test: (view, params) => … } }; or give yours another name and use that in the rules`,
      );
    }
    if (!builtIn && definition.override === true)
      throw new UsageError(`${source}: guards.${name}: override: true, but there is no built-in guard "${name}" to replace`);
    return {
      name,
      test: definition.test,
      overrides: builtIn,
      ...(definition.summary ? { summary: definition.summary } : {}),
      ...(definition.params ? { params: definition.params } : {}),
    };
  });
}
