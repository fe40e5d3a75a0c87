import { createHarnessMachine, type HarnessMachine } from '../machines/harness-machine.js';
import { fingerprint } from '../machines/stall/progress.js';
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
}

export interface ReplayOptions {
  rules?: RulesInput | Rules;
  /** Keep the rules' step and time budgets (by default they are lifted: the replay measures the stall rules, not the budget). */
  keepBudgets?: boolean;
  /** The test command when the run does not name one. */
  testCmd?: string;
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
  const machine = createHarnessMachine(rules);
  return { rules, replay: (run) => replayWith(machine, rules, run, options.testCmd ?? '') };
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

function replayWith(machine: HarnessMachine, rules: Rules, run: RecordedRun, testCmd: string): ReplayResult {
  const probe = probeHarness(machine, rules, { testCmd: run.testCmd ?? testCmd });
  const edits = new EditStates();
  const seen = new Set<string>();
  const fresh: boolean[] = [];
  const steps: ReplayStep[] = [];
  const nudges: ReplayNudge[] = [];
  let stop: ReplayResult['stop'] = null;
  for (const [index, recorded] of run.steps.entries()) {
    if (probe.state.endsWith('.compact')) probe.contextReady();
    if (!probe.state.endsWith('.think')) break;
    let step: ReturnType<typeof probe.reply>;
    if (recorded.tool === 'none') {
      step = probe.reply({ content: recorded.raw ?? '' });
    } else {
      const observed = `${recorded.tool}:${fingerprint(recorded.output)}`;
      fresh.push(!seen.has(observed));
      seen.add(observed);
      const result = resultOf(recorded, edits);
      const finish = recorded.tool === 'finish' ? { summary: String(recorded.args.summary ?? 'done') } : undefined;
      probe.reply({ calls: [{ name: recorded.tool, args: result.args ?? {} }] });
      step = finish ? probe.tools([], finish) : probe.tools([result]);
    }
    const entry: ReplayStep = { index, tool: recorded.tool, state: probe.state, progress: [] };
    for (const note of step.notes) {
      if (note.kind === 'progress') entry.progress.push(...note.results.flatMap((r) => r.kinds));
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
