import type { Plain } from './merge.js';

const isPlain = (value: unknown): value is Plain => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * What `rules` sets differently from `base`: objects compared key by key,
 * anything else (arrays included: a rules file replaces them whole) by value.
 * `undefined` when nothing differs.
 *
 * @example diffRules(defaultRules(), strictRules) // { phases: { plan: { tools: [...], exits: [...] } } }
 */
export function diffRules(base: unknown, rules: unknown): unknown {
  if (isPlain(base) && isPlain(rules)) {
    const out: Plain = {};
    for (const key of new Set([...Object.keys(base), ...Object.keys(rules)])) {
      const changed = diffRules(base[key], rules[key]);
      if (changed !== undefined) out[key] = changed;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  return JSON.stringify(base) === JSON.stringify(rules) ? undefined : rules;
}
