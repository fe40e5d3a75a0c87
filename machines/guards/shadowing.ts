import { BUILT_IN_GUARDS, isBuiltInGuard } from './catalogue.js';

/** A condition as the shadowing rule compares it: the guard's name (or a compound's own text) and its parameters. */
export interface GuardCall {
  type: string;
  params?: Record<string, unknown>;
}

/**
 * Why a condition tried first holds whenever a later one does, as far as the rules alone say, or null: it has no
 * condition (`always`), it is the same condition, or it is the same count with a threshold no higher. The chart's
 * coverage (testing/coverage/shadows.ts) and `rein rules check` (machines/inert-rules.ts) both judge by this.
 *
 * @example shadowingOf({ type: 'phaseSteps', params: { min: 2 } }, { type: 'phaseSteps', params: { min: 5 } }) // 'lower-threshold'
 */
export function shadowingOf(earlier: GuardCall | null, later: GuardCall | null): 'unconditional' | 'same' | 'lower-threshold' | null {
  if (earlier === null || earlier.type === 'always') return 'unconditional';
  if (later === null || earlier.type !== later.type) return null;
  if (JSON.stringify(earlier.params ?? {}) === JSON.stringify(later.params ?? {})) return 'same';
  const name = later.type;
  const param = isBuiltInGuard(name) ? BUILT_IN_GUARDS[name].counts?.param : undefined;
  if (!param) return null;
  const rest = (call: GuardCall) => JSON.stringify({ ...call.params, [param]: 0 });
  if (rest(earlier) !== rest(later)) return null;
  return Number(earlier.params?.[param] ?? 1) <= Number(later.params?.[param] ?? 1) ? 'lower-threshold' : null;
}
