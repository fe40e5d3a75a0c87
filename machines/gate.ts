import type { ToolMessage } from '../context/messages.js';
import { CONDITION_FORMS } from '../rules/conditions.js';
import type { Condition, Rules } from '../rules/schema.js';
import { type FoldRules, foldResults } from './facts.js';
import { builtInLookup, conditionLabel, explainCondition, type GuardLookup } from './guards/explain.js';
import { guardView } from './guards/guard-view.js';
import type { HarnessContext, ToolCallResult } from './types.js';
import { fillTemplate, type Update } from './update.js';
import { type CheckRule, TESTS_CHECK, verificationOf } from './verification.js';

/**
 * The verification gate (seed component 6): a finish call is accepted only
 * when the test command (and every check in `verification.checks`) has
 * passed the wanted number of times since the last edit. Otherwise the
 * refusal is that call's result, saying what is still missing.
 */

/** The verification gate's built-in guard. */
export const GATE_GUARD = 'testsPassedSinceLastEdit';

/** Keys of a condition that are not a guard's parameters. */
const CONDITION_KEYS: ReadonlySet<string> = new Set(CONDITION_FORMS);

/**
 * The gate's condition: `verification.when`, or the test guard alone; the
 * test guard without parameters takes `verification.runs` and `checks`.
 */
export function gateCondition(rules: Rules): Condition {
  const fill = (condition: Condition): Condition => {
    if (condition.all) return { all: condition.all.map(fill) };
    if (condition.any) return { any: condition.any.map(fill) };
    if (condition.not) return { not: fill(condition.not) };
    const own = Object.keys(condition).filter((key) => !CONDITION_KEYS.has(key));
    return condition.guard === GATE_GUARD && own.length === 0 ? { guard: GATE_GUARD, ...gateParams(rules) } : condition;
  };
  return fill(rules.verification.when ?? { guard: GATE_GUARD });
}

/** The gate guard's parameters, as the chart shows them: `testsPassedSinceLastEdit(runs=1)`. */
export function gateParams(rules: Rules): { runs: number; checks: Record<string, number> } {
  const checks = Object.fromEntries(rules.verification.checks.map((check) => [check.name, check.runs]));
  return { runs: rules.verification.runs, checks };
}

/** What the refusal action is told: the text, the checks (for what is missing), the gate's condition (for why), and what decided. */
export interface RefusalParams {
  refusal: string;
  checks: CheckRule[];
  fold: Omit<FoldRules, 'testCmd'>;
  /** The gate's condition, with the guard names the rules use. */
  condition: Condition;
  /** What decided, as the trace names it: the gate's guard as the machine names it (`testsPassedSinceLastEdit (overridden)` when a rules file replaced it), or the condition's label. */
  guard: string;
}

export function refusalParams(rules: Rules, naming: (name: string) => string = (name) => name): RefusalParams {
  const verification = verificationOf(rules);
  const condition = gateCondition(rules);
  return {
    refusal: rules.verification.refusal,
    checks: verification.checks,
    // Stryker disable next-line ObjectLiteral: the refusal folds a result whose effect is none, which never reaches the verification parameters
    fold: { verification },
    condition,
    guard: condition.guard === undefined ? conditionLabel(condition, CONDITION_KEYS) : naming(condition.guard),
  };
}

/** What keeps the gate shut, in words: one clause per check still short of its passing runs. */
export function missingChecks(context: HarnessContext, checks: readonly CheckRule[]): Array<{ command: string; why: string }> {
  const edited = context.facts.lastEditSeq >= 0;
  return checks.flatMap((check) => {
    const passes = context.facts.checks[check.name]?.passesSinceEdit ?? 0;
    if (passes >= check.runs) return [];
    const command = check.command ?? context.testCmd;
    const what = check.name === TESTS_CHECK ? 'test run' : `run of \`${command}\``;
    const since = edited ? ' after the last edit' : ' yet';
    const why = check.runs > 1 ? `${passes} of ${check.runs} passing ${what}s${since}` : `no passing ${what}${since}`;
    return [{ command, why }];
  });
}

/**
 * The gate refused a finish call: the refusal is that call's result. It is
 * an action like any other for the stall detector (a model that keeps
 * calling finish is repeating itself, whatever summary it writes).
 */
export function refusalUpdate(context: HarnessContext, params: RefusalParams, lookup: GuardLookup = builtInLookup): Update {
  const call = context.calls[context.cursor]!;
  const missing = missingChecks(context, params.checks);
  // The test guard words its own reason with the commands still to pass; a guard a rules file put in its place gives its own, or is named.
  const why =
    explainCondition(params.condition, guardView(context), lookup, CONDITION_KEYS, {
      [GATE_GUARD]: () => missing.map((entry) => entry.why).join('; ') || 'the gate did not hold',
    }) ?? 'the gate did not hold';
  const cmd = (missing.length > 0 ? missing.map((entry) => entry.command) : [context.testCmd]).join('` and `');
  const refusal = fillTemplate(params.refusal, { cmd, why });
  const attempt: ToolCallResult = {
    id: call.id,
    // Stryker disable next-line StringLiteral: no other result carries a refusal's text, so the name cannot make a refusal the same as, or other than, another result
    name: 'finish',
    args: {},
    outcome: {
      content: refusal,
      ok: false,
      // Stryker disable next-line ObjectLiteral,StringLiteral: every reader of an effect branches on its kind, and an effect of no known kind reads as none
      effect: { kind: 'none' },
    },
    ms: 0,
  };
  // The refusal has its own trace line (a refused finish), so what it made new is not traced as progress too.
  // Stryker disable next-line ObjectLiteral: the refusal's effect is none, which never reaches the fold's verification parameters or test command
  const folded = foldResults(context, [attempt], { ...params.fold, testCmd: context.testCmd });
  const refusals = context.facts.gateRefusals + 1;
  return {
    context: {
      cursor: context.cursor + 1,
      facts: { ...folded.facts, gateRefusals: refusals },
      turn: { ...folded.turn, finishRefused: true },
      stall: folded.stall,
    },
    append: [{ role: 'tool', tool_call_id: call.id, content: refusal }],
    notes: [{ kind: 'finish', allowed: false, step: context.step, refusals, why, guard: params.guard }],
  };
}

/**
 * The gate accepted finish: its summary becomes the run's (only an accepted
 * finish's summary is), and the call and any calls after it are closed, so
 * the record stays well-formed.
 */
export function acceptanceUpdate(context: HarnessContext, params: { gate: boolean }): Update {
  const append: ToolMessage[] = context.calls.slice(context.cursor).map((call, index) => ({
    role: 'tool',
    tool_call_id: call.id,
    content: index === 0 ? 'Finished.' : 'Not run: the run finished.',
  }));
  const summary = finishSummary(context.calls[context.cursor]?.function.arguments);
  return {
    context: { cursor: context.calls.length, summary },
    append,
    notes: [{ kind: 'finish', allowed: true, step: context.step, summary, gate: params.gate }],
  };
}

/** The summary a finish call gives; the tool actor only stops at a finish whose arguments parsed. */
function finishSummary(args: string | undefined): string {
  try {
    const summary = (JSON.parse(args ?? '{}') as { summary?: unknown }).summary;
    return typeof summary === 'string' ? summary : '';
  } catch {
    return '';
  }
}
