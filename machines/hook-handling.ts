import type { MachineNote } from '../lib/trace/trace-events.js';
import { callFacts } from '../rules/approvals/call-facts.js';
import type { HookMoment } from '../rules/hooks/schema.js';
import type { Phase, Rules } from '../rules/schema.js';
import type { HooksInput, HooksOutput } from './actor-contracts.js';
import type { HarnessContext, ToolsOutput } from './types.js';
import type { Update } from './update.js';

/**
 * The lifecycle hooks as states of the chart: what each moment's hooks are
 * told (the event on their stdin) and what the machine does with their
 * answer. Every moment is an invoke of the hooks actor; the states exist only
 * when the rules configure hooks for that moment, so a run without hooks has
 * the plain chart.
 *
 * - preToolHook (preToolUse): may allow, deny or ask; a failure denies (approval-handling.ts judges the answer).
 * - postToolHook (postToolUse): after one call ran; its notes are added to that call's result for the model.
 * - phaseHook / settleHook (phaseChange): on entering another phase; the answer changes nothing.
 * - finishHook (beforeFinish): may refuse the finish with a reason; a failure refuses it.
 * - runEndHook (runEnd): in the state the run ended in, before it is final; the answer changes nothing.
 */

/** Which moments have hooks, as the chart builder needs it. */
interface HookMoments {
  preToolUse: boolean;
  postToolUse: boolean;
  phaseChange: boolean;
  beforeFinish: boolean;
  runEnd: boolean;
}

export function hookMomentsOf(rules: Rules): HookMoments {
  const { hooks } = rules;
  return {
    preToolUse: hooks.preToolUse.length > 0,
    postToolUse: hooks.postToolUse.length > 0,
    phaseChange: hooks.phaseChange.length > 0,
    beforeFinish: hooks.beforeFinish.length > 0,
    runEnd: hooks.runEnd.length > 0,
  };
}

/** The event a hook gets for the call at the cursor (preToolUse) or the finish there (beforeFinish). */
export function hookInputFor(context: HarnessContext, moment: 'preToolUse' | 'beforeFinish'): HooksInput {
  const call = context.calls[context.cursor];
  const tool = call?.function.name ?? '';
  const args = call ? callFacts(tool, call.function.arguments).args : {};
  return { moment, tool, step: context.step, event: { phase: context.phase, step: context.step, call: { id: call?.id ?? '', tool, args } } };
}

/** The event the postToolUse hooks get: the call that just ran and its result (the tool actor runs one call at a time then). */
export function postToolInput(context: HarnessContext): HooksInput {
  // Stryker disable next-line OptionalChaining: postToolHook is entered only from act with a result held (callsRan)
  const result = context.heldResults?.results[0];
  const tool = result?.name ?? '';
  return {
    moment: 'postToolUse',
    tool,
    ...(result ? { outcome: callFailed(result.outcome) ? ('failure' as const) : ('success' as const) } : {}),
    step: context.step,
    event: {
      phase: context.phase,
      step: context.step,
      call: { id: result?.id ?? '', tool, args: result?.args ?? {} },
      result: result ? { ok: result.outcome.ok, content: result.outcome.content, effect: result.outcome.effect, ms: result.ms } : null,
    },
  };
}

/** A call failed for Claude Code's PostToolUseFailure: the tool failed, or the command it ran did not exit 0. */
function callFailed(outcome: { ok: boolean; effect?: unknown }): boolean {
  const effect = outcome.effect as { kind?: string; exitCode?: number | null } | undefined;
  return !outcome.ok || (effect?.kind === 'command' && effect.exitCode !== 0);
}

/** The event the phaseChange hooks get on entering a phase. */
export function phaseChangeInput(context: HarnessContext, params: { to: Phase }): HooksInput {
  return { moment: 'phaseChange', step: context.step, event: { from: context.previousPhase, to: params.to, step: context.step } };
}

/** The event the runEnd hooks get: how the run ended. */
export function runEndInput(context: HarnessContext): HooksInput {
  return {
    moment: 'runEnd',
    step: context.step,
    event: { status: context.status, reason: context.reason, steps: context.step, summary: context.summary, usage: context.usage },
  };
}

/** The tool actor ran a call and postToolUse hooks are configured: its result waits for them. */
export function holdResultsUpdate(output: ToolsOutput): Update {
  return { context: { heldResults: output } };
}

/** The held result with the hooks' notes added for the model (the hooks' answers are traced; a failed hook adds nothing). */
export function withHookNotes(held: ToolsOutput | null, output: HooksOutput): ToolsOutput {
  // Stryker disable next-line ObjectLiteral: postToolHook is entered only with a result held
  const results = held?.results ?? [];
  if (output.notes.length === 0 || results.length === 0) return held ?? { results, finish: null };
  const notes = output.notes.map((note) => `[hook note] ${note}`).join('\n');
  const [first, ...rest] = results;
  return { ...held!, results: [{ ...first!, outcome: { ...first!.outcome, content: `${first!.outcome.content}\n${notes}` } }, ...rest] };
}

/** The hooks actor failed as a whole (a bug, not a hook's failure, which is an outcome): fail closed. */
export function hookFailure(error: unknown): HooksOutput {
  return { decision: 'deny', message: `the hooks could not run (${error instanceof Error ? error.message : String(error)})`, notes: [] };
}

/** The trace line for a hooks actor that failed as a whole at a moment whose answer changes nothing. */
export function hookActorFailureNote(context: HarnessContext, params: { moment: HookMoment; error: unknown }): MachineNote {
  const why = params.error instanceof Error ? params.error.message : String(params.error);
  return {
    kind: 'hook',
    step: context.step,
    moment: params.moment,
    command: '(the hooks actor)',
    exitCode: null,
    ms: 0,
    problem: `the hooks could not run (${why})`,
  };
}
