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

/**
 * The state after which a run's state is saved: the model has replied and
 * its tool calls are about to run. Once a step: a run killed later in the
 * turn resumes here, and its tool calls come back from the journal.
 */
export function isCheckpoint(label: string): boolean {
  return label.endsWith('.act');
}
