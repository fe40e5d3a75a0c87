/**
 * How a named guard reads on the chart, in the trace and in coverage, with
 * the numbers it compares: `phaseSteps(min=3)`, `stallPersists(maxNudges=3)`.
 * No imports (the visualizer page bundles it); machines/introspection.ts reads
 * the guards out of XState.
 */

/** A named guard's label from its name and parameters: `phaseSteps(min=3)`; what only repeats the defaults (an empty object) is left out. */
export function namedGuardLabel(name: string, params?: Record<string, unknown>): string {
  const shown = params ? paramsText(name, params) : '';
  return shown ? `${name}(${shown})` : name;
}

/** XState's names for its higher-order guards, as the rules write them. */
export const COMBINATOR_NAMES: Readonly<Record<string, 'all' | 'any' | 'not'>> = { and: 'all', or: 'any', not: 'not', all: 'all', any: 'any' };

/** Parameters whose full value would swamp a label, shown by what matters. */
const PARAM_TEXT: Record<string, (params: Record<string, unknown>) => string> = {
  stallPersists: (params) => `maxNudges=${String(params.maxNudges)}`,
  nudgedOut: (params) => `${String(params.rule)}, maxNudges=${String(params.maxNudges)}`,
  budgetWarningDue: (params) =>
    ((params.warnings as Array<{ budget: string; share: number; limit: number }> | undefined) ?? [])
      .map((warning) => `${warning.budget} ${Math.round(warning.share * 100)}% of ${warning.limit}`)
      .join(', '),
  budgetSpent: (params) =>
    Object.entries((params.caps as Record<string, unknown> | undefined) ?? {})
      .filter(([key]) => key === 'maxTokens' || key === 'maxCostUsd')
      .map(([key, value]) => `${key}=${String(value)}`)
      .join(', '),
};

function paramsText(name: string, params: Record<string, unknown>): string {
  // Stryker disable next-line Regex: the suffix only ever ends a name (overriddenName); a name with it in the middle would have to be a reserved guard's name split in two
  const custom = PARAM_TEXT[name.replace(/ \(overridden\)$/, '')];
  if (custom) return custom(params);
  return Object.entries(params)
    .filter(([, value]) => typeof value !== 'function' && !(value !== null && typeof value === 'object' && Object.keys(value).length === 0))
    .map(([key, value]) => `${key}=${valueText(value)}`)
    .join(', ');
}

function valueText(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 24 ? `${value.slice(0, 23)}…` : value);
  // null is an object here too, and reads "null" as JSON.stringify writes it.
  if (typeof value === 'object') {
    const text = JSON.stringify(value);
    return text.length <= 32 ? text : Array.isArray(value) ? `[${value.length}]` : '{…}';
  }
  return String(value);
}
