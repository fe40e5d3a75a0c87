import { UsageError } from '../lib/errors.js';
import type { ActionCall, Rules } from '../rules/schema.js';
import { PHASES } from '../rules/schema.js';
import { builtInGuards, GUARD_PARAMS, stallGuards, type GuardRegistry } from './guards.js';
import { ACTION_PARAMS, builtInActions, type RuleActionRegistry } from './rule-actions.js';

/** Keys of a rule that are the rule's own, not the guard's parameters. */
const EXIT_KEYS = ['guard', 'to', 'settle', 'actions'];
const STALL_RULE_KEYS = ['guard', 'limit', 'message'];

/**
 * What the schema alone cannot check: every guard a rule names must be
 * registered and take the parameters given, phases may only allow tools
 * the run has, exits may only lead to enabled phases, and nudge texts must
 * name a stall rule. Each problem is a bad rules file (exit code 2),
 * reported with its JSON path; all of them at once, one per line.
 */
export function checkRuleReferences(rules: Rules, registry: GuardRegistry, actions: RuleActionRegistry = builtInActions): void {
  const problems: string[] = [];
  const known = Object.keys(registry).sort().join(', ');
  const checkGuard = (call: Record<string, unknown>, path: string, own: readonly string[]) => {
    const name = String(call.guard);
    if (!(name in registry)) { problems.push(`${path}.guard: unknown guard "${name}"; registered guards: ${known}`); return; }
    const params = GUARD_PARAMS[name];
    // A guard registered from code (or one replacing a built-in) reads whatever parameters its rules give it.
    if (!params || registry[name] !== builtInGuards[name]) return;
    for (const key of Object.keys(call).filter((entry) => !own.includes(entry))) {
      if (!params.includes(key)) problems.push(`${path}.${key}: guard "${name}" takes ${params.length > 0 ? `only ${params.map((param) => `"${param}"`).join(', ')}` : 'no parameters'}, found ${JSON.stringify(call[key])}`);
    }
  };
  const knownActions = Object.keys(actions).sort().join(', ');
  const checkActions = (calls: readonly ActionCall[] | undefined, path: string) => (calls ?? []).forEach((call, index) => {
    const at = `${path}[${index}]`;
    if (!(call.action in actions)) { problems.push(`${at}.action: unknown action "${call.action}"; registered actions: ${knownActions}`); return; }
    const params = ACTION_PARAMS[call.action];
    if (!params || actions[call.action] !== builtInActions[call.action]) return;
    for (const param of params) if (typeof call[param] !== 'string') problems.push(`${at}.${param}: action "${call.action}" needs "${param}" (a string), found ${JSON.stringify(call[param]) ?? 'nothing'}`);
    for (const key of Object.keys(call)) if (key !== 'action' && !params.includes(key)) problems.push(`${at}.${key}: action "${call.action}" takes only ${params.map((param) => `"${param}"`).join(', ')}`);
  });
  const stallNames = new Set([...Object.keys(stallGuards), ...rules.stall.rules.map((rule) => rule.guard)]);
  for (const phase of PHASES) {
    const rule = rules.phases[phase];
    checkActions(rule.onEnter, `phases.${phase}.onEnter`);
    rule.exits.forEach((exit, index) => {
      const path = `phases.${phase}.exits[${index}]`;
      checkGuard(exit, path, EXIT_KEYS);
      checkActions(exit.actions, `${path}.actions`);
      if (rule.enabled && !rules.phases[exit.to].enabled) problems.push(`${path}.to: phase "${exit.to}" is disabled (phases.${exit.to}.enabled is false), so this exit leads nowhere`);
    });
    if (Array.isArray(rule.tools)) {
      rule.tools.forEach((tool, index) => {
        if (!rules.tools.enabled.includes(tool)) problems.push(`phases.${phase}.tools[${index}]: "${tool}" is not a tool of this run; tools.enabled: ${rules.tools.enabled.join(', ')}`);
      });
    }
    for (const name of Object.keys(rule.nudges)) {
      if (!stallNames.has(name)) problems.push(`phases.${phase}.nudges.${name}: no stall rule "${name}"; stall rules: ${[...stallNames].join(', ')}`);
    }
  }
  rules.stall.rules.forEach((rule, index) => checkGuard(rule, `stall.rules[${index}]`, STALL_RULE_KEYS));
  for (const name of Object.keys(rules.messages.stall)) {
    if (!stallNames.has(name)) problems.push(`messages.stall.${name}: no stall rule "${name}"; stall rules: ${[...stallNames].join(', ')}`);
  }
  if (!rules.phases.build.enabled) problems.push('phases.build.enabled: the build phase cannot be disabled');
  if (problems.length > 0) throw new UsageError(problems.join('\n'));
}
