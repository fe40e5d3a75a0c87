import type { StateValue } from 'xstate';

/**
 * A state value as a dotted path: `{ build: 'act' }` → `build.act`.
 *
 * @example stateLabel({ verify: 'think' }) // 'verify.think'
 */
export function stateLabel(value: StateValue): string {
  if (typeof value === 'string') return value;
  const [key, child] = Object.entries(value)[0] ?? ['', ''];
  if (child === undefined || (typeof child === 'object' && Object.keys(child).length === 0)) return key;
  return `${key}.${stateLabel(child as StateValue)}`;
}

/** States after which the run's state is saved: a turn is starting, or the model has replied. */
export function isCheckpoint(label: string): boolean {
  return label.endsWith('.compact') || label.endsWith('.act');
}
