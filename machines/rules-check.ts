import { didYouMean } from '../lib/did-you-mean.js';
import { UsageError } from '../lib/errors.js';
import { isMcpToolEntry, namesDeclaredServer } from '../lib/tool-patterns.js';
import { describeValue, formatZodError } from '../lib/zod-error.js';
import { type ActionCall, type Condition, END_TARGETS, EXIT_FIELDS, enabledPhases, isEndTarget, phaseNames, phaseRule, type Rules } from '../rules/schema.js';
import { isStallRuleName, STALL_RULE_NAMES } from '../rules/stall-rules.js';
import { isToolGlob, toolMatches } from '../rules/tool-names.js';
import { BUILT_IN_GUARDS, GUARD_CATALOGUE, isBuiltInGuard } from './guards/catalogue.js';
import { RESERVED_GUARDS } from './guards/registry.js';
import { ACTION_PARAMS, builtInActions } from './rule-actions.js';
import { TESTS_CHECK } from './verification.js';

/** Keys of an exit that are the exit's own, not its guard's parameters. */
const CONDITION_KEYS = ['guard', 'all', 'any', 'not'];
const STALL_RULE_KEYS = ['guard', 'limit', 'message'];

/** The names registered from a rules module, besides the built-ins. */
export interface Registered {
  guards: readonly string[];
  actions: readonly string[];
}

/**
 * What the schema alone cannot check: every guard a rule names must exist
 * (with a "did you mean" for a misspelling) and take the parameters given
 * (checked against the guard's own parameter schema), every action likewise,
 * phases may only allow tools the run has, exits may only lead to enabled
 * phases, nudge texts must name a stall rule. Each problem is a bad rules
 * file (exit code 2) reported with its JSON path, all of them at once.
 */
export function checkRuleReferences(rules: Rules, registered: Registered = { guards: [], actions: [] }): void {
  const problems: string[] = [];
  const guardNames = [...new Set([...Object.keys(BUILT_IN_GUARDS), ...registered.guards])].sort();
  const checkGuard = (call: Record<string, unknown>, path: string, own: readonly string[]) => {
    const name = String(call.guard);
    if ((RESERVED_GUARDS as readonly string[]).includes(name)) {
      problems.push(`${path}.guard: "${name}" is one of the machine's own guards; rules name the guards listed by \`rein rules guards\``);
      return;
    }
    if (!guardNames.includes(name)) {
      problems.push(
        `${path}.guard: unknown guard "${name}"${didYouMean(name, guardNames)}; guards: ${guardNames.join(', ')} (rein rules guards describes them)`,
      );
      return;
    }
    // A guard registered from code (or one replacing a built-in) reads whatever parameters its rules give it.
    if (!isBuiltInGuard(name) || registered.guards.includes(name)) return;
    const spec = BUILT_IN_GUARDS[name];
    const params = Object.fromEntries(Object.entries(call).filter(([key]) => !own.includes(key)));
    const known = Object.keys(spec.params.shape);
    for (const key of Object.keys(params).filter((entry) => !known.includes(entry))) {
      // The guard's own parameters first: a near miss of one is the likelier slip.
      const hint = didYouMean(key, known) || didYouMean(key, own);
      const takes = known.length > 0 ? `takes ${known.map((param) => `"${param}"`).join(', ')}` : 'takes no parameters';
      problems.push(
        `${path}.${key}: unknown key "${key}"${hint}, found ${describeValue(params[key])}; guard "${name}" ${takes}, and the rule itself ${own.map((entry) => `"${entry}"`).join(', ')}`,
      );
      delete params[key];
    }
    const parsed = spec.params.safeParse(params);
    if (!parsed.success) problems.push(...formatZodError(parsed.error, { input: params }).map((line) => `${path}.${line}`));
    // A verdict can only come from an agent the rules declare.
    else if (name === 'agentApproved' && !Object.hasOwn(rules.agents, String(params.agent))) {
      const declared = Object.keys(rules.agents);
      problems.push(
        `${path}.agent: no agent "${String(params.agent)}"${didYouMean(String(params.agent), declared)}; agents declares ${declared.length > 0 ? declared.join(', ') : 'none'}`,
      );
    }
  };
  const checkCondition = (condition: Condition, path: string, own: readonly string[]): void => {
    if (condition.all)
      condition.all.forEach((part, index) => {
        checkCondition(part, `${path}.all[${index}]`, CONDITION_KEYS);
      });
    else if (condition.any)
      condition.any.forEach((part, index) => {
        checkCondition(part, `${path}.any[${index}]`, CONDITION_KEYS);
      });
    else if (condition.not) checkCondition(condition.not, `${path}.not`, CONDITION_KEYS);
    else checkGuard(condition, path, own);
    if (!condition.guard) {
      for (const key of Object.keys(condition).filter((entry) => !own.includes(entry))) {
        problems.push(`${path}.${key}: unknown key "${key}"${didYouMean(key, own)}; parameters go beside a "guard", not beside "all", "any" or "not"`);
      }
    }
  };
  const actionNames = [...new Set([...Object.keys(builtInActions), ...registered.actions])].sort();
  const checkActions = (calls: readonly ActionCall[] | undefined, path: string) =>
    (calls ?? []).forEach((call, index) => {
      const at = `${path}[${index}]`;
      if (!actionNames.includes(call.action)) {
        problems.push(`${at}.action: unknown action "${call.action}"${didYouMean(call.action, actionNames)}; actions: ${actionNames.join(', ')}`);
        return;
      }
      const params = ACTION_PARAMS[call.action];
      if (!params || registered.actions.includes(call.action)) return;
      for (const param of params)
        if (typeof call[param] !== 'string')
          problems.push(`${at}.${param}: action "${call.action}" needs "${param}" (a string), found ${describeValue(call[param])}`);
      const quoted = params.map((param) => `"${param}"`);
      // Stryker disable next-line StringLiteral: every built-in action takes one parameter (ACTION_PARAMS), so the separator never shows
      const takes = quoted.join(', ');
      for (const key of Object.keys(call))
        if (key !== 'action' && !params.includes(key))
          problems.push(`${at}.${key}: unknown key "${key}"${didYouMean(key, params)}; action "${call.action}" takes only ${takes}`);
    });
  const stallNames = new Set([...STALL_RULE_NAMES, ...rules.stall.rules.map((rule) => rule.guard)]);
  const phases = phaseNames(rules);
  // Where an exit may lead: a phase of the rules (enabled or not: a disabled one is its own problem) or a final state.
  const checkTarget = (to: string, path: string, enabled: boolean) => {
    if (isEndTarget(to)) return;
    if (!phases.includes(to)) {
      const targets = [...phases, ...END_TARGETS];
      problems.push(`${path}: unknown target "${to}"${didYouMean(to, targets)}; phases: ${phases.join(', ')}; final states: ${END_TARGETS.join(', ')}`);
    } else if (enabled && !phaseRule(rules, to).enabled) {
      problems.push(
        `${path}: phase "${to}" is disabled (phases.${to}.enabled is false), so this ${path.endsWith('onMaxSteps') ? 'limit' : 'exit'} leads nowhere`,
      );
    }
  };
  for (const phase of phases) {
    const rule = phaseRule(rules, phase);
    checkActions(rule.onEnter, `phases.${phase}.onEnter`);
    rule.exits.forEach((exit, index) => {
      const path = `phases.${phase}.exits[${index}]`;
      checkCondition(exit, path, EXIT_FIELDS);
      checkActions(exit.actions, `${path}.actions`);
      checkTarget(exit.to, `${path}.to`, rule.enabled);
    });
    if (rule.onMaxSteps !== undefined && rule.maxSteps === undefined) problems.push(`phases.${phase}.onMaxSteps: needs phases.${phase}.maxSteps`);
    if (rule.onMaxSteps !== undefined) checkTarget(rule.onMaxSteps, `phases.${phase}.onMaxSteps`, rule.enabled);
    if (Array.isArray(rule.tools)) {
      rule.tools.forEach((tool, index) => {
        const servers = Object.keys(rules.mcp.servers);
        if (isMcpToolEntry(tool)) {
          if (!rules.mcp.projectConfig && !namesDeclaredServer(tool, servers))
            problems.push(`phases.${phase}.tools[${index}]: "${tool}" names no MCP server of mcp.servers (${servers.join(', ') || 'none declared'})`);
        } else if (isToolGlob(tool)) {
          // A glob may match tools that come and go (a tool server's); it only has to match one of this run's.
          if (!rules.tools.enabled.some((name) => toolMatches(tool, name)))
            problems.push(`phases.${phase}.tools[${index}]: "${tool}" matches no tool of this run; tools.enabled: ${rules.tools.enabled.join(', ')}`);
        } else if (!rules.tools.enabled.includes(tool))
          problems.push(
            `phases.${phase}.tools[${index}]: "${tool}" is not a tool of this run${didYouMean(tool, rules.tools.enabled)}; tools.enabled: ${rules.tools.enabled.join(', ')}`,
          );
      });
    }
    for (const name of Object.keys(rule.nudges)) {
      if (!stallNames.has(name))
        problems.push(
          `phases.${phase}.nudges.${name}: no stall rule "${name}"${didYouMean(name, [...stallNames])}; stall rules: ${[...stallNames].join(', ')}`,
        );
    }
    const inEffect = rules.stall.rules.map((stallRule) => stallRule.guard);
    for (const name of Object.keys(rule.stallLimits)) {
      if (!inEffect.includes(name))
        problems.push(
          `phases.${phase}.stallLimits.${name}: no stall rule "${name}" in stall.rules${didYouMean(name, inEffect)}; in effect: ${inEffect.join(', ')}`,
        );
    }
  }
  for (const [tool, placed] of Object.entries(rules.tools.phases)) {
    if (!rules.tools.enabled.includes(tool) && !isMcpToolEntry(tool))
      problems.push(
        `tools.phases.${tool}: "${tool}" is not a tool of this run${didYouMean(tool, rules.tools.enabled)}; tools.enabled: ${rules.tools.enabled.join(', ')}`,
      );
    placed.forEach((phase, index) => {
      if (!phases.includes(phase))
        problems.push(
          `tools.phases.${tool}[${index}]: unknown phase "${phase}"${didYouMean(phase, phases)}; phases: ${phases.join(', ')} (a registered tool's own \`phases\` fill tools.phases)`,
        );
    });
  }
  const stallGuards = [...Object.keys(GUARD_CATALOGUE.stall), ...registered.guards];
  rules.stall.rules.forEach((rule, index) => {
    const path = `stall.rules[${index}]`;
    if (isBuiltInGuard(rule.guard) && !isStallRuleName(rule.guard) && !registered.guards.includes(rule.guard)) {
      problems.push(
        `${path}.guard: "${rule.guard}" is not a stall rule${didYouMean(rule.guard, stallGuards)}; stall rules: ${STALL_RULE_NAMES.join(', ')}, or a guard a rules module registers`,
      );
      return;
    }
    checkGuard(
      rule,
      path,
      STALL_RULE_KEYS.filter((key) => key !== 'limit'),
    );
  });
  for (const name of Object.keys(rules.messages.stall)) {
    if (!stallNames.has(name))
      problems.push(`messages.stall.${name}: no stall rule "${name}"${didYouMean(name, [...stallNames])}; stall rules: ${[...stallNames].join(', ')}`);
  }
  if (rules.verification.when) checkCondition(rules.verification.when, 'verification.when', CONDITION_KEYS);
  const checkNames = rules.verification.checks.map((check) => check.name);
  checkNames.forEach((name, index) => {
    if (name === TESTS_CHECK)
      problems.push(`verification.checks[${index}].name: "${TESTS_CHECK}" is the test command's own check (set verification.runs for it)`);
    else if (checkNames.indexOf(name) !== index) problems.push(`verification.checks[${index}].name: "${name}" is used twice`);
  });
  if (enabledPhases(rules).length === 0) problems.push('phases: every phase is disabled; a run needs a phase to start in');
  const { context } = rules;
  if (context.lowWater >= context.soft)
    problems.push(`context.lowWater: a compaction must leave the view below where the next is due (context.soft ${context.soft}), found ${context.lowWater}`);
  if (context.soft >= context.hard)
    problems.push(`context.soft: compactions must be due before the view reaches context.hard (${context.hard}), found ${context.soft}`);
  if (problems.length > 0) throw new UsageError(problems.join('\n'));
}
