import { fromPromise } from 'xstate';
import { maskSecrets } from '../../lib/secrets/secret-scan.js';
import type { HooksInput, HooksOutput } from '../../machines/actor-contracts.js';
import { wildcard } from '../../rules/approvals/patterns.js';
import type { HookFunction, HookMoment, Hooks } from '../../rules/hooks/schema.js';
import { type HookLauncher, type HookOutcome, runHook } from './run-hook.js';

export interface HooksDeps {
  hooks: Hooks;
  /** How a hook command is started: in the run's sandbox or on the host (actors/hooks/hook-launch.ts). */
  launch: HookLauncher;
  /** Hook functions a rules module exports (`hookFunctions`), by name. */
  functions?: Readonly<Record<string, HookFunction>>;
  /** Values masked in what the hooks tell the model (their notes and messages), as in tool results. */
  secrets?: readonly string[];
  /** Every hook that ran, for the trace and the status line. */
  onOutcome?: (outcome: HookOutcome, step: number) => void;
}

/** Moments whose hooks decide something: a hook that fails there fails closed (the call is denied, the finish refused). */
const DECIDING: ReadonlySet<HookMoment> = new Set(['preToolUse', 'beforeFinish']);

/**
 * The answer of a moment's hooks, in order: any deny wins (the first one's
 * message), else any ask, else an allow; notes are collected. At a deciding
 * moment a hook that crashed, timed out or printed something that is not
 * the hook JSON denies, with the problem as the message.
 *
 * @example combineOutcomes('preToolUse', [{ decision: 'allow', … }, { problem: 'exit 1', … }]) // { decision: 'deny', … }
 */
export function combineOutcomes(moment: HookMoment, outcomes: readonly HookOutcome[]): HooksOutput {
  const deciding = DECIDING.has(moment);
  const problems = outcomes.filter((outcome) => outcome.problem);
  const notes = outcomes.flatMap((outcome) => (outcome.note ? [outcome.note] : []));
  const failed = deciding ? problems[0] : undefined;
  if (failed) return { decision: 'deny', message: `the ${moment} hook \`${failed.command}\` failed (${failed.problem}), so it counts as a denial`, notes };
  const denied = outcomes.find((outcome) => outcome.decision === 'deny');
  if (denied) return { decision: 'deny', message: denied.message ?? `denied by the ${moment} hook \`${denied.command}\``, notes };
  const asked = outcomes.find((outcome) => outcome.decision === 'ask');
  if (asked) return { decision: 'ask', message: asked.message ?? `the ${moment} hook \`${asked.command}\` asks for an approval`, notes };
  const allowed = outcomes.find((outcome) => outcome.decision === 'allow');
  if (allowed) return { decision: 'allow', ...(allowed.message ? { message: allowed.message } : {}), notes };
  return { decision: null, notes };
}

/**
 * The hooks actor: runs a moment's hooks (those whose `tools` pattern fits
 * the call) one after another, traces each, and returns their combined
 * answer. It never throws for a hook's failure: that is an outcome.
 *
 * @example const hooks = createHooksActor({ hooks: rules.hooks, launch: (command, spec) => planHookLaunch(command, spec.where, context) });
 */
export function createHooksActor(deps: HooksDeps) {
  return fromPromise<HooksOutput, HooksInput>(({ input, signal }) => runMomentHooks(deps, input, signal));
}

/** Runs a moment's hooks and combines their answers (the hooks actor at every moment's state). */
async function runMomentHooks(deps: HooksDeps, input: HooksInput, signal?: AbortSignal): Promise<HooksOutput> {
  // A finish is judged by the gate and the beforeFinish hooks, not as a tool call.
  if (input.moment === 'preToolUse' && input.tool === 'finish') return { decision: null, notes: [] };
  const specs = deps.hooks[input.moment].filter((spec) => input.tool === undefined || wildcard(spec.tools).test(input.tool));
  const outcomes: HookOutcome[] = [];
  for (const spec of specs) {
    const outcome = await runHook(
      input.moment,
      spec,
      { moment: input.moment, ...input.event },
      { launch: deps.launch, ...(signal ? { signal } : {}), ...(deps.functions ? { functions: deps.functions } : {}) },
    );
    deps.onOutcome?.(outcome, input.step);
    outcomes.push(outcome);
    if (signal?.aborted) break;
  }
  return masked(combineOutcomes(input.moment, outcomes), deps.secrets ?? []);
}

/** A hook's words reach the model (a note, a denial's message): secrets are masked there as in any tool result. */
function masked(output: HooksOutput, secrets: readonly string[]): HooksOutput {
  const mask = (text: string) => maskSecrets(text, secrets).text;
  return { ...output, ...(output.message !== undefined ? { message: mask(output.message) } : {}), notes: output.notes.map(mask) };
}
