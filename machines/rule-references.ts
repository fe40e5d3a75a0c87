import { UsageError } from '../lib/errors.js';
import type { Rules } from '../rules/schema.js';
import { PHASES } from '../rules/schema.js';
import type { GuardRegistry } from './guards.js';

/**
 * Every guard a rule names must be registered; an unknown name is a bad
 * rules file (exit code 2), reported with its JSON path.
 */
export function checkRuleReferences(rules: Rules, registry: GuardRegistry): void {
  const known = Object.keys(registry).sort().join(', ');
  const check = (name: string, path: string) => {
    if (!(name in registry)) throw new UsageError(`${path}: unknown guard "${name}"; registered guards: ${known}`);
  };
  for (const phase of PHASES) {
    rules.phases[phase].exits.forEach((exit, index) => check(exit.guard, `phases.${phase}.exits[${index}].guard`));
  }
  rules.stall.rules.forEach((rule, index) => check(rule.guard, `stall.rules[${index}].guard`));
  if (!rules.phases.build.enabled) throw new UsageError('phases.build.enabled: the build phase cannot be disabled');
}
