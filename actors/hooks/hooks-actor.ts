import { fromPromise } from 'xstate';
import { maskSecrets } from '../../lib/secrets/secret-scan.js';
import type { HooksInput, HooksOutput } from '../../machines/actor-contracts.js';
import { wildcard } from '../../rules/approvals/patterns.js';
import { claudeMatcher } from '../../rules/hooks/claude-dialect.js';
import { claudeToolName, reinToolArgs } from '../../rules/hooks/claude-tools.js';
import type { HookFunction, HookMoment, HookSpec, Hooks } from '../../rules/hooks/schema.js';
import { claudeEventFields, type HookSession } from './claude-event.js';
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
  /** The run as Claude Code's hook fields name it: session_id, transcript_path, cwd. */
  session?: HookSession;
  /** Awaited before a hook command runs (the run's workspace snapshot of the step before, scanned while the model answered). */
  ready?: () => Promise<void>;
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
  // After a call nothing can be refused: a block (exit 2, Claude Code's decision "block") is feedback for the model, as in Claude Code.
  if (moment === 'postToolUse')
    return { decision: null, notes: [...notes, ...outcomes.flatMap((outcome) => (outcome.decision === 'deny' && outcome.message ? [outcome.message] : []))] };
  const updated = [...outcomes].reverse().find((outcome) => outcome.updatedInput);
  const withArgs = (output: HooksOutput): HooksOutput =>
    updated?.updatedInput && output.decision !== 'deny' ? { ...output, updatedArgs: updated.updatedInput } : output;
  const denied = outcomes.find((outcome) => outcome.decision === 'deny');
  if (denied) return { decision: 'deny', message: denied.message ?? `denied by the ${moment} hook \`${denied.command}\``, notes };
  const asked = outcomes.find((outcome) => outcome.decision === 'ask');
  if (asked) return withArgs({ decision: 'ask', message: asked.message ?? `the ${moment} hook \`${asked.command}\` asks for an approval`, notes });
  const allowed = outcomes.find((outcome) => outcome.decision === 'allow');
  if (allowed) return withArgs({ decision: 'allow', ...(allowed.message ? { message: allowed.message } : {}), notes });
  return withArgs({ decision: null, notes });
}

/**
 * The hooks actor: runs a moment's hooks (those whose `tools` pattern fits
 * the call) one after another, traces each, and returns their combined
 * answer. It never throws for a hook's failure: that is an outcome.
 *
 * @example const hooks = createHooksActor({ hooks: rules.hooks, launch: (command, spec) => planHookLaunch(command, spec.where, context) });
 */
export function createHooksActor(deps: HooksDeps) {
  const memory: HookMemory = { finishRefused: false };
  return fromPromise<HooksOutput, HooksInput>(({ input, signal }) => runMomentHooks(deps, input, memory, signal));
}

/** Runs a moment's hooks and combines their answers (the hooks actor at every moment's state). */
async function runMomentHooks(deps: HooksDeps, input: HooksInput, memory: HookMemory, signal?: AbortSignal): Promise<HooksOutput> {
  // A finish is judged by the gate and the beforeFinish hooks, not as a tool call.
  if (input.moment === 'preToolUse' && input.tool === 'finish') return { decision: null, notes: [] };
  const specs = deps.hooks[input.moment].filter((spec) => hookApplies(spec, input));
  if (specs.length > 0) await deps.ready?.();
  const outcomes: HookOutcome[] = [];
  let event: Record<string, unknown> = { moment: input.moment, ...input.event };
  const session = deps.session ?? { id: '', transcriptPath: '', cwd: process.cwd() };
  for (const spec of specs) {
    const stdin = { ...event, ...claudeEventFields(input, event, { session, stopHookActive: memory.finishRefused }) };
    const outcome = await runHook(input.moment, spec, stdin, {
      launch: deps.launch,
      ...(signal ? { signal } : {}),
      ...(deps.functions ? { functions: deps.functions } : {}),
    });
    deps.onOutcome?.(outcome, input.step);
    if (outcome.updatedInput && input.tool !== undefined) {
      // Claude Code's updatedInput replaces the whole input: later hooks, the rules and the tool see the new arguments.
      outcome.updatedInput = reinToolArgs(input.tool, outcome.updatedInput, session.cwd);
      event = { ...event, call: { ...(event.call as Record<string, unknown>), args: outcome.updatedInput } };
    }
    outcomes.push(outcome);
    if (signal?.aborted) break;
  }
  const output = masked(combineOutcomes(input.moment, outcomes), deps.secrets ?? []);
  if (input.moment === 'beforeFinish') memory.finishRefused = output.decision === 'deny';
  return output;
}

/** What the hooks actor remembers between moments: whether the last finish was refused by a hook (Claude Code's stop_hook_active). */
interface HookMemory {
  finishRefused: boolean;
}

/** Whether a hook is for this call: its matcher (Claude Code's, tested against both names) or its tools pattern, and for postToolUse its `after`. */
function hookApplies(spec: HookSpec, input: HooksInput): boolean {
  if (spec.after !== undefined && input.outcome !== undefined && spec.after !== input.outcome) return false;
  if (input.tool === undefined) return true;
  if (spec.matcher !== undefined) {
    const matches = claudeMatcher(spec.matcher);
    return matches !== null && (matches(claudeToolName(input.tool)) || matches(input.tool));
  }
  return wildcard(spec.tools).test(input.tool);
}

/** A hook's words reach the model (a note, a denial's message): secrets are masked there as in any tool result. */
function masked(output: HooksOutput, secrets: readonly string[]): HooksOutput {
  const mask = (text: string) => maskSecrets(text, secrets).text;
  return { ...output, ...(output.message !== undefined ? { message: mask(output.message) } : {}), notes: output.notes.map(mask) };
}
