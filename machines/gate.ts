import type { ToolMessage } from '../context/messages.js';
import type { Rules } from '../rules/schema.js';
import { type FoldRules, foldResults } from './facts.js';
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

/** The gate guard's parameters, as the chart shows them: `testsPassedSinceLastEdit(runs=1)`. */
export function gateParams(rules: Rules): { runs: number; checks: Record<string, number> } {
  const checks = Object.fromEntries(rules.verification.checks.map((check) => [check.name, check.runs]));
  return { runs: rules.verification.runs, checks };
}

/** What the refusal action is told: the text, the checks (for what is missing), and who decided when a rules file replaced the gate's guard. */
export interface RefusalParams {
  refusal: string;
  checks: CheckRule[];
  fold: Omit<FoldRules, 'testCmd'>;
  /** The gate's guard as the machine names it (`testsPassedSinceLastEdit (overridden)` when a rules file replaced it). */
  guard: string;
}

export function refusalParams(rules: Rules, guard: string): RefusalParams {
  const verification = verificationOf(rules);
  return {
    refusal: rules.verification.refusal,
    checks: verification.checks,
    // Stryker disable next-line ObjectLiteral: the refusal folds a result whose effect is none, which never reaches the verification parameters
    fold: { verification },
    guard,
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
export function refusalUpdate(context: HarnessContext, params: RefusalParams): Update {
  const call = context.calls[context.cursor]!;
  const missing = missingChecks(context, params.checks);
  // A guard a rules file put in place of the built-in decides by its own logic: the refusal can only name it.
  const why =
    params.guard !== GATE_GUARD ? `the gate guard ${params.guard} did not hold` : missing.map((entry) => entry.why).join('; ') || 'the gate did not hold';
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
