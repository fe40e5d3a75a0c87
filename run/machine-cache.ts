import { createHarnessMachine, type HarnessMachine, type HarnessOptions } from '../machines/harness-machine.js';
import type { Rules } from '../rules/schema.js';

const machines = new Map<string, { guards: HarnessOptions['guards']; actions: HarnessOptions['actions']; machine: HarnessMachine }>();
const MAX_CACHED_MACHINES = 16;

/**
 * The statechart for these rules and registries, built once per process: a
 * machine is immutable, and reusing it keeps V8's feedback for its guards
 * and actions warm from one run to the next (an eval worker, the benchmark).
 *
 * @example const machine = harnessMachineFor(rules, { guards, actions });
 */
export function harnessMachineFor(rules: Rules, options: HarnessOptions = {}): HarnessMachine {
  const key = JSON.stringify(rules);
  const cached = machines.get(key);
  if (cached && cached.guards === options.guards && cached.actions === options.actions) return cached.machine;
  const machine = createHarnessMachine(rules, options);
  if (machines.size >= MAX_CACHED_MACHINES) machines.delete(machines.keys().next().value!);
  machines.set(key, { guards: options.guards, actions: options.actions, machine });
  return machine;
}
