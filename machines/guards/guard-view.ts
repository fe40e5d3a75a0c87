import type { TodoItem } from '../../lib/tool-effect.js';
import type { Usage } from '../../lib/usage.js';
import type { Phase } from '../../rules/schema.js';
import { latestReviews } from '../delegation/charge.js';
import type { HarnessContext } from '../types.js';

/**
 * What a guard may read: a small, stable view of the run, the same for
 * built-in guards and guards registered from a rules file. Internal state
 * (the working view, the call cursor, the context manager's state) is not
 * part of it, so it can change without breaking anyone's guards.
 */
export interface GuardView {
  phase: Phase;
  /** Model replies so far in the run. */
  step: number;
  /** Model replies since the current phase was entered. */
  phaseSteps: number;
  /** What the last turn did. */
  turn: {
    toolCalls: number;
    edited: boolean;
    /** A verification command ran this turn. */
    testRan: boolean;
    /** The last verification run this turn: passed, failed, or none. */
    testPassed: boolean | null;
    todoWritten: boolean;
    finishRefused: boolean;
  };
  facts: {
    /** Successful edits in the run. */
    edits: number;
    /** An edit was made since the current phase was entered. */
    editedInPhase: boolean;
    /** Verification runs in the run, and since the current phase was entered. */
    testRuns: number;
    phaseTestRuns: number;
    /** Verification runs in a row that failed. */
    failedRunsInRow: number;
    lastTestPassed: boolean | null;
    /** The last verification run came after the last edit (or nothing was edited). */
    testedSinceEdit: boolean;
    /** The last edit came after the last verification run. */
    editedSinceTest: boolean;
    /** Passing runs of the test command itself since the last edit. */
    passingRunsSinceEdit: number;
    /** Per verification check (`tests`, and those in `verification.checks`). */
    checks: Readonly<Record<string, { passesSinceEdit: number; lastPassed: boolean | null }>>;
    gateRefusals: number;
    todo: readonly TodoItem[];
    todoDone: number;
    todoOpen: number;
    /** Files an applied edit changed in the run. */
    editedPaths: readonly string[];
    /** Commands (their text, trimmed) that passed after the last edit. */
    commandsPassedSinceEdit: readonly string[];
  };
  /** Stall counters by rule: the count this turn reached and the nudges in the current stall. */
  stall: Readonly<Record<string, { count: number; nudges: number }>>;
  usage: Usage;
  /** Each agent's latest ended child (delegate): how it ended, its verdict (approve, reject or none), whether it came after the last edit. */
  reviews: Readonly<Record<string, { verdict: 'approve' | 'reject' | null; report: string; status: string; sinceEdit: boolean }>>;
}

const views = new WeakMap<HarnessContext, GuardView>();

/**
 * The guard view of a machine context (computed once per context: contexts
 * are immutable, and one turn evaluates several guards on the same one).
 *
 * @example guardView(snapshot.context).facts.passingRunsSinceEdit
 */
export function guardView(context: HarnessContext): GuardView {
  const cached = views.get(context);
  if (cached) return cached;
  const { facts, turn } = context;
  const done = facts.todo.filter((item) => item.done).length;
  const view: GuardView = {
    phase: context.phase,
    step: context.step,
    phaseSteps: context.step - facts.phaseStartStep,
    turn: { ...turn },
    facts: {
      edits: facts.edits,
      editedInPhase: facts.lastEditSeq > facts.phaseStartSeq,
      testRuns: facts.testRuns,
      phaseTestRuns: facts.testRuns - facts.phaseStartTestRuns,
      failedRunsInRow: facts.failedRunsInRow,
      lastTestPassed: facts.lastTestPassed,
      testedSinceEdit: facts.lastTestSeq > facts.lastEditSeq,
      editedSinceTest: facts.lastEditSeq > facts.lastTestSeq,
      passingRunsSinceEdit: facts.checks.tests?.passesSinceEdit ?? 0,
      checks: Object.fromEntries(
        Object.entries(facts.checks).map(([name, check]) => [name, { passesSinceEdit: check.passesSinceEdit, lastPassed: check.lastPassed }]),
      ),
      gateRefusals: facts.gateRefusals,
      todo: facts.todo,
      todoDone: done,
      todoOpen: facts.todo.length - done,
      // A checkpoint from before these facts existed has neither.
      editedPaths: facts.editedPaths ?? [],
      commandsPassedSinceEdit: Object.entries(facts.commandPasses ?? {})
        .filter(([, seq]) => seq > facts.lastEditSeq)
        .map(([command]) => command),
    },
    stall: Object.fromEntries(Object.entries(context.stall.counters).map(([rule, counter]) => [rule, { count: counter.peak, nudges: counter.firings }])),
    usage: context.usage,
    reviews: latestReviews(context),
  };
  views.set(context, view);
  return view;
}
