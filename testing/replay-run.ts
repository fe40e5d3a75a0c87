import { createHarnessMachine, type HarnessMachine, type HarnessOptions } from '../machines/harness-machine.js';
import { type Rules, type RulesInput, rulesSchema } from '../rules/schema.js';
import type { ToolOutcome } from '../tools/types.js';
import { EditStates } from './edit-states.js';
import { probeHarness } from './probe.js';
import type { RecordedRun, RecordedStep } from './recorded-run.js';
import type { ResultSpec } from './results.js';

/** "Learning" at a nudge: at least LEARNING_NEW of the last LEARNING_WINDOW observations (the nudged one included) were new to the run. */
export const LEARNING_WINDOW = 8;
export const LEARNING_NEW = 6;

/** What the machine did after one recorded action. */
export interface ReplayStep {
  /** Index of the action in the recorded run (0-based). */
  index: number;
  tool: string;
  /** Dotted state after the action, e.g. `build.think`, or a final state (`stalled`, `done`). */
  state: string;
  /** Progress kinds the action made (`newInfo`, `newFileState`, …). */
  progress: string[];
  /** The nudge this action triggered, if any. */
  nudge?: ReplayNudge;
}

/** A nudge, tied to the recorded action after which rein would have sent it. */
export interface ReplayNudge {
  index: number;
  /** The machine's step (model replies so far). */
  step: number;
  rule: string;
  count: number;
  message: string;
  /** Of the last LEARNING_WINDOW observations up to this action, how many were new to the run. */
  novelty: { fresh: number; window: number };
  /** The agent was learning: novelty.fresh >= LEARNING_NEW. */
  learning: boolean;
}

/** What the rules would have done to one recorded run, open loop. */
export interface ReplayResult {
  run: RecordedRun;
  /** `stalled` (rein would have ended the run), `done` (the finish gate let it end), `running` (the recording ran out first), or another final state. */
  status: string;
  /** Actions replayed (all of them unless the run ended first). */
  replayed: number;
  steps: ReplayStep[];
  nudges: ReplayNudge[];
  /** Where rein would have ended the run as stalled, and why. */
  stop: { index: number; step: number; reason: string } | null;
  /** Actions the recording has after the stop (what a stop would have saved). */
  savedActions: number;
  /** With `trace: true`: the run as rein trace lines (model replies, tool results, state changes, the machine's notes), for the visualizer. */
  trace?: Array<Record<string, unknown>>;
}

export interface ReplayOptions {
  rules?: RulesInput | Rules;
  /** Keep the rules' step and time budgets (by default they are lifted: the replay measures the stall rules, not the budget). */
  keepBudgets?: boolean;
  /** The test command when the run does not name one. */
  testCmd?: string;
  /** Guards and rule actions a rules module registers (as `loadRules` returns them). */
  extensions?: HarnessOptions;
  /** Also return the run as trace lines (slower; off by default). */
  trace?: boolean;
}

/**
 * Replays recorded runs open loop through rein's real statechart (pure
 * transitions: no model, no tools, no files): each recorded action is one
 * model reply with that call, answered with the recorded result. The agent
 * never sees a nudge, so a nudge means "rein would have interrupted here"
 * and a stop "rein would have ended the run here". Build once, replay many.
 *
 * @example
 * const replayer = createReplayer({ stall: { maxNudges: 2 } });
 * const result = replayer.replay({ id: 'r1', resolved: true, steps: [{ tool: 'grep', args: { pattern: 'x' }, output: 'a.py:1: x' }] });
 * result.nudges // []
 */
export function createReplayer(options: ReplayOptions = {}): { rules: Rules; replay(run: RecordedRun): ReplayResult } {
  const rules = replayRules(options);
  const machine = createHarnessMachine(rules, options.extensions);
  return { rules, replay: (run) => replayWith(machine, rules, run, options.testCmd ?? '', options.trace === true) };
}

/** Replays one recorded run (see createReplayer to replay many with one machine). */
export function replayRun(run: RecordedRun, options: ReplayOptions = {}): ReplayResult {
  return createReplayer(options).replay(run);
}

function replayRules(options: ReplayOptions): Rules {
  const parsed = rulesSchema.parse(options.rules ?? {});
  if (options.keepBudgets) return parsed;
  return { ...parsed, budgets: { ...parsed.budgets, maxSteps: Number.MAX_SAFE_INTEGER, maxSeconds: Number.MAX_SAFE_INTEGER } };
}

function replayWith(machine: HarnessMachine, rules: Rules, run: RecordedRun, testCmd: string, tracing: boolean): ReplayResult {
  const probe = probeHarness(machine, rules, { testCmd: run.testCmd ?? testCmd });
  const trace: Array<Record<string, unknown>> | undefined = tracing ? [] : undefined;
  // One line per event that changed the state (not per microstep): enough for the visualizer to follow the run.
  const traced = <T extends ReturnType<typeof probe.reply>>(event: string, send: () => T): T => {
    const from = probe.state;
    const step = send();
    if (trace && probe.state !== from) trace.push({ kind: 'transition', from, to: probe.state, event });
    if (trace) trace.push(...(step.notes as unknown as Array<Record<string, unknown>>));
    return step;
  };
  const edits = new EditStates();
  const fresh: boolean[] = [];
  const steps: ReplayStep[] = [];
  const nudges: ReplayNudge[] = [];
  let stop: ReplayResult['stop'] = null;
  for (const [index, recorded] of run.steps.entries()) {
    if (probe.state.endsWith('.compact')) traced('xstate.done.actor.contextManager', () => probe.contextReady());
    if (!probe.state.endsWith('.think')) break;
    let step: ReturnType<typeof probe.reply>;
    if (recorded.tool === 'none') {
      const content = recorded.raw ?? '';
      step = traced('xstate.done.actor.model', () => probe.reply({ content }));
      trace?.push({ kind: 'model', step: probe.context.step, content, tool_calls: [], usage: {}, ms: null });
    } else {
      const result = resultOf(recorded, edits);
      const finish = recorded.tool === 'finish' ? { summary: String(recorded.args.summary ?? 'done') } : undefined;
      traced('xstate.done.actor.model', () => probe.reply({ calls: [{ name: recorded.tool, args: result.args ?? {} }] }));
      trace?.push({
        kind: 'model',
        step: probe.context.step,
        content: null,
        tool_calls: [{ id: `call_${index}`, type: 'function', function: { name: recorded.tool, arguments: JSON.stringify(result.args ?? {}) } }],
        usage: {},
        ms: null,
      });
      if (!finish)
        trace?.push({
          kind: 'tool',
          step: probe.context.step,
          id: `call_${index}`,
          name: recorded.tool,
          args: result.args ?? {},
          ok: result.outcome.ok,
          ms: 0,
          effect: result.outcome.effect,
          result: result.outcome.content.slice(0, 2000),
        });
      step = traced('xstate.done.actor.tools', () => (finish ? probe.tools([], finish) : probe.tools([result])));
    }
    const entry: ReplayStep = { index, tool: recorded.tool, state: probe.state, progress: [] };
    for (const note of step.notes) if (note.kind === 'progress') entry.progress.push(...note.results.flatMap((r) => r.kinds));
    // "New to the run" is the machine's own newInfo, so the learning measure and the rules agree on what is new.
    if (recorded.tool !== 'none' && recorded.tool !== 'finish') fresh.push(entry.progress.includes('newInfo'));
    for (const note of step.notes) {
      if (note.kind !== 'stall') continue;
      const window = fresh.slice(-LEARNING_WINDOW);
      const count = window.filter(Boolean).length;
      const nudge: ReplayNudge = {
        index,
        step: probe.context.step,
        rule: note.rule,
        count: note.count,
        message: note.message,
        novelty: { fresh: count, window: window.length },
        learning: count >= LEARNING_NEW,
      };
      entry.nudge = nudge;
      nudges.push(nudge);
    }
    steps.push(entry);
    if (probe.state === 'stalled') stop = { index, step: probe.context.step, reason: probe.context.reason };
  }
  const final = probe.state;
  const replayed = steps.length;
  return {
    run,
    status: final.includes('.') ? 'running' : final,
    replayed,
    steps,
    nudges,
    stop,
    savedActions: stop ? run.steps.length - replayed : 0,
    ...(trace ? { trace } : {}),
  };
}

/** The recorded result as the tool would have returned it: the content the agent saw, and the effect rein's tool reports. */
function resultOf(step: RecordedStep, edits: EditStates): ResultSpec {
  const content = step.output;
  const ok = step.ok !== false;
  const outcome = (effect: ToolOutcome['effect'], okay = ok): ResultSpec => ({ name: step.tool, args: step.args, outcome: { content, ok: okay, effect } });
  switch (step.tool) {
    case 'read_file':
      return outcome({ kind: 'read', path: String(step.args.path ?? '') });
    case 'grep':
      return outcome({ kind: 'search', pattern: String(step.args.pattern ?? '') });
    case 'edit_file': {
      const known =
        step.edit?.before !== undefined && step.edit.after !== undefined
          ? { path: String(step.args.path ?? ''), before: step.edit.before, after: step.edit.after }
          : null;
      const { path, before, after } = known ?? edits.apply(step);
      return outcome({ kind: 'edit', path, applied: step.edit?.applied !== false, before, after }, true);
    }
    case 'update_todo':
      return outcome({ kind: 'todo', items: step.todo ?? [] });
    default: {
      const command = String(step.args.command ?? step.raw ?? '');
      return outcome({ kind: 'command', command, exitCode: step.exitCode ?? 0, timedOut: false, blocked: false }, true);
    }
  }
}
