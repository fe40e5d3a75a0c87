import type { Rules } from './schema.js';
import { toolAllowed } from './tool-names.js';

/**
 * Where a tool is offered: a phase's `tools` list allows it (by name, glob or `all`), unless the tool is placed
 * (`tools.phases`, which a registered tool's own `phases` fills in) in other phases only. A phase whose list names
 * the tool itself offers it wherever it is placed: the phase's rule is the more specific one.
 */

/** The tools placed in other phases only that this phase's tool list does not name: the phase does not offer them. */
export function placedElsewhere(rules: Rules, phase: string): string[] {
  const list = rules.phases[phase]?.tools ?? 'all';
  return Object.entries(rules.tools.phases)
    .filter(([name, phases]) => !phases.includes(phase) && !(Array.isArray(list) && list.includes(name)))
    .map(([name]) => name);
}

/**
 * Whether a phase offers a tool, its placement considered.
 *
 * @example phaseAllowsTool(rules, 'build', 'run_linter') // false when run_linter is placed in fix only
 */
export function phaseAllowsTool(rules: Rules, phase: string, name: string): boolean {
  return toolAllowed(rules.phases[phase]?.tools ?? 'all', name) && !placedElsewhere(rules, phase).includes(name);
}
