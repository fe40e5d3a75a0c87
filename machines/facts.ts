import { type EffectOf, readEffect, type TodoItem } from '../lib/tool-effect.js';
import type { ProgressEvent } from '../lib/trace/trace-events.js';
import { foldStall } from './stall/counters.js';
import { type ResultClass, testSignature } from './stall/progress.js';
import type { Facts, StallState, ToolCallResult, TurnFacts } from './types.js';
import { checkOf, isExactTestCommand, isPass, TESTS_CHECK, type VerificationParams } from './verification.js';

export function initialFacts(todo: TodoItem[] = []): Facts {
  return {
    seq: 0,
    lastEditSeq: -1,
    lastTestSeq: -1,
    lastPassSeq: -1,
    lastTestPassed: null,
    phaseStartSeq: 0,
    phaseStartStep: 0,
    phaseStartTestRuns: 0,
    edits: 0,
    testRuns: 0,
    failedRunsInRow: 0,
    todo,
    gateRefusals: 0,
    checks: {},
    editedPaths: [],
    commandPasses: {},
  };
}

export function initialTurn(toolCalls = 0): TurnFacts {
  return { toolCalls, edited: false, testRan: false, testPassed: null, todoWritten: false, finishRefused: false };
}

/** What the folds need besides the state: how verification runs are recognized, and the run's test command. */
export interface FoldRules {
  verification: VerificationParams;
  testCmd: string;
}

/**
 * Folds one turn's tool results, in call order, into the facts, the turn
 * facts and the stall counters, and says what each result made new. The
 * single place where derived facts are computed; guards only compare what it
 * produces.
 */
export function foldResults(
  state: { facts: Facts; turn: TurnFacts; stall: StallState },
  results: readonly ToolCallResult[],
  rules: FoldRules,
): { facts: Facts; turn: TurnFacts; stall: StallState; progress: ProgressEvent['results'] } {
  let { facts, turn, stall } = state;
  const progress: ProgressEvent['results'] = [];
  for (const result of results) {
    const folded = foldFacts(facts, turn, result, rules);
    ({ facts, turn } = folded);
    const before = stall.progress.length;
    stall = foldStall(stall, result, folded.classified);
    const kinds = stall.progress.slice(before);
    if (kinds.length > 0) progress.push({ id: result.id, name: result.name, kinds });
  }
  return { facts, turn, stall, progress };
}

type Folded = { facts: Facts; turn: TurnFacts; classified: ResultClass };

/** One result and the facts before it: what each kind's fold reads. */
interface Fold {
  facts: Facts;
  turn: TurnFacts;
  result: ToolCallResult;
  rules: FoldRules;
  seq: number;
}

function foldFacts(facts: Facts, turn: TurnFacts, result: ToolCallResult, rules: FoldRules): Folded {
  const fold: Fold = { facts, turn, result, rules, seq: facts.seq + 1 };
  const unchanged = () => counted(fold);
  // What each kind of effect does to the facts (a new kind fails tsc here until it says).
  return readEffect<Folded>(result.outcome.effect, {
    edit: (edit) => (edit.applied ? foldEdit(fold, [edit.path, ...(edit.also ?? [])]) : unchanged()),
    command: (run) => foldCommand(fold, run),
    todo: (todo) => (result.outcome.ok ? foldTodo(fold, todo.items) : unchanged()),
    read: unchanged,
    search: unchanged,
    job: unchanged,
    finish: unchanged,
    mcp: unchanged,
    none: unchanged,
  });
}

/** A result that changes no fact but the count of results. */
function counted({ facts, turn, seq }: Fold): Folded {
  return { facts: { ...facts, seq }, turn, classified: {} };
}

function foldEdit({ facts, turn, seq }: Fold, paths: readonly string[]): Folded {
  const known = facts.editedPaths ?? [];
  const editedPaths = [...known, ...paths.filter((path, at) => !known.includes(path) && paths.indexOf(path) === at)];
  return {
    facts: { ...facts, seq, lastEditSeq: seq, edits: facts.edits + 1, checks: afterEdit(facts.checks), editedPaths },
    turn: { ...turn, edited: true },
    classified: {},
  };
}

function foldTodo({ facts, turn, seq }: Fold, items: TodoItem[]): Folded {
  return { facts: { ...facts, seq, todo: items }, turn: { ...turn, todoWritten: true }, classified: { todoBefore: facts.todo } };
}

function foldCommand({ facts, turn, result, rules, seq }: Fold, run: EffectOf<'command'>): Folded {
  const passedCommand = run.exitCode === 0 && !run.blocked && !run.timedOut && !run.interrupted;
  const next = passedCommand ? { ...facts, seq, commandPasses: { ...facts.commandPasses, [run.command.trim()]: seq } } : { ...facts, seq };
  // A run cut short by a stop proved nothing either way, so it is not a verification run.
  const check = !run.blocked && !run.interrupted ? checkOf(run.command, rules.verification, rules.testCmd) : null;
  if (check) {
    const passed = isPass(run.exitCode, result.outcome.content, check);
    const counts = passed && isExactTestCommand(run.command, check.command);
    const passes = facts.checks[check.name]?.passesSinceEdit ?? 0;
    return {
      facts: {
        ...next,
        lastTestSeq: seq,
        testRuns: facts.testRuns + 1,
        lastTestPassed: passed,
        failedRunsInRow: passed ? 0 : facts.failedRunsInRow + 1,
        lastPassSeq: counts && check.name === TESTS_CHECK ? seq : facts.lastPassSeq,
        checks: { ...facts.checks, [check.name]: { passesSinceEdit: passes + (counts ? 1 : 0), lastRunSeq: seq, lastPassed: passed } },
      },
      turn: { ...turn, testRan: true, testPassed: passed },
      classified: { test: { command: check.name, signature: testSignature(run.exitCode, result.outcome.content, passed) } },
    };
  }
  if (!run.blocked && rules.verification.commandsCountAsEdits) {
    return { facts: { ...next, lastEditSeq: seq, checks: afterEdit(facts.checks) }, turn: { ...turn, edited: true }, classified: {} };
  }
  return { facts: next, turn, classified: {} };
}

/** An edit makes every earlier pass stale. */
function afterEdit(checks: Facts['checks']): Facts['checks'] {
  return Object.fromEntries(Object.entries(checks).map(([name, check]) => [name, { ...check, passesSinceEdit: 0 }]));
}
