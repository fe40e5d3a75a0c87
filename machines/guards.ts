import type { HarnessContext } from './types.js';

/** Parameters a rule passes to a guard, e.g. `{ limit: 4 }`. */
export type GuardParams = Record<string, unknown>;

/**
 * A named, pure predicate over the machine context. No I/O, no clock: facts
 * are derived by the `recordResults` action, guards only compare.
 */
export type HarnessGuard = (context: HarnessContext, params: GuardParams) => boolean;

const limitOf = (params: GuardParams): number => Number(params.limit ?? Number.POSITIVE_INFINITY);

/** Guards a phase rule may name as its exit condition (evaluated after each turn). */
export const phaseGuards = {
  /** The model wrote a todo list this turn. */
  todoWritten: (context) => context.turn.todoWritten,
  /** A successful edit was made this turn. */
  editMade: (context) => context.turn.edited,
  /** The verification command ran this turn, after any edit of the turn. */
  testRun: (context) => context.turn.testRan && context.facts.lastTestSeq > context.facts.lastEditSeq,
  /** The last verification run this turn failed. */
  testFailed: (context) => context.turn.testPassed === false,
  /** The last verification run this turn passed. */
  testPassed: (context) => context.turn.testPassed === true,
  /** A finish call was refused by the gate this turn. */
  finishRefused: (context) => context.turn.finishRefused,
  /** In this phase, an edit was made after the last verification run. */
  editedSinceTest: (context) => {
    const { lastEditSeq, lastTestSeq, phaseStartSeq } = context.facts;
    return lastEditSeq > lastTestSeq && lastEditSeq > phaseStartSeq;
  },
  /** In this phase, an edit was made and then the verification command ran. */
  testedAfterEdit: (context) => {
    const { lastEditSeq, lastTestSeq, phaseStartSeq } = context.facts;
    return lastEditSeq > phaseStartSeq && lastTestSeq > lastEditSeq;
  },
  /** At least `count` (default 1) todo items are done. */
  todoProgress: (context, params) => context.facts.todo.filter((item) => item.done).length >= Number(params.count ?? 1),
  /** Always true: an unconditional exit. */
  always: () => true,
} satisfies Record<string, HarnessGuard>;

/** What a built-in guard needs before it can ever hold. */
export interface GuardNeeds {
  /** At least one of these tools must be callable in the phase. */
  tools?: readonly string[];
  /** Only holds when the verification gate is on (it reacts to a refusal). */
  gate?: boolean;
  /** Looks only at what happened since the phase began: false on the turn that entered the phase. */
  phaseRelative?: boolean;
  /** Edits can also come from commands (`verification.commandsCountAsEdits`). */
  edits?: boolean;
}

/**
 * The machine builder leaves out transitions whose guard cannot hold under
 * the rules (a tool the phase cannot call, a gate that is off), so the chart
 * shows only what can happen and model-based coverage can demand every edge.
 */
export const GUARD_NEEDS: Readonly<Record<string, GuardNeeds>> = {
  todoWritten: { tools: ['update_todo'] },
  editMade: { edits: true },
  testRun: { tools: ['run'] },
  testFailed: { tools: ['run'] },
  testPassed: { tools: ['run'] },
  finishRefused: { gate: true },
  editedSinceTest: { edits: true, phaseRelative: true },
  testedAfterEdit: { edits: true, phaseRelative: true },
  todoProgress: { tools: ['update_todo'] },
  editThrash: { tools: ['edit_file'] },
  readLoop: { tools: ['read_file', 'grep'] },
};

/** The verification gate: a passing test run after the last successful edit. */
export const gateGuards = {
  testsPassedSinceLastEdit: (context) => context.facts.lastPassSeq >= 0 && context.facts.lastPassSeq > context.facts.lastEditSeq,
} satisfies Record<string, HarnessGuard>;

const counterAt = (context: HarnessContext, rule: string) => context.stall.counters[rule]?.peak ?? 0;

/** Stall-detector guards: each compares one counter with its `limit`. */
export const stallGuards = {
  /** Same action with the same result `limit` times in a row (seed). */
  repeatedAction: (context, params) => counterAt(context, 'repeatedAction') >= limitOf(params),
  /** Same action failing `limit` times in a row, whatever the output. */
  repeatedFailure: (context, params) => counterAt(context, 'repeatedFailure') >= limitOf(params),
  /** A-B-A-B alternation over `limit` actions. */
  alternation: (context, params) => counterAt(context, 'alternation') >= limitOf(params),
  /** `limit` successful edits to one file without a passing test (seed). */
  editThrash: (context, params) => counterAt(context, 'editThrash') >= limitOf(params),
  /** `limit` reads or searches with no edit (seed). */
  readLoop: (context, params) => counterAt(context, 'readLoop') >= limitOf(params),
  /** `limit` replies in a row without a tool call. */
  noToolCalls: (context, params) => counterAt(context, 'noToolCalls') >= limitOf(params),
} satisfies Record<string, HarnessGuard>;

export type GuardRegistry = Record<string, HarnessGuard>;

/** The parameters each built-in guard reads; any other key in a rule that names it is a mistake. Guards registered from code take any. */
export const GUARD_PARAMS: Readonly<Record<string, readonly string[]>> = {
  ...Object.fromEntries(Object.keys(phaseGuards).map((name) => [name, []])),
  ...Object.fromEntries(Object.keys(gateGuards).map((name) => [name, []])),
  ...Object.fromEntries(Object.keys(stallGuards).map((name) => [name, ['limit']])),
  todoProgress: ['count'],
};

/** Every built-in guard a rules file may name. */
export const builtInGuards: GuardRegistry = { ...phaseGuards, ...gateGuards, ...stallGuards };
