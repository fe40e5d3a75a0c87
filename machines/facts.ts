import type { TodoItem } from '../lib/tool-effect.js';
import type { ProgressEvent } from '../lib/trace-events.js';
import { foldStall } from './stall/counters.js';
import { isAppliedEdit, type ResultClass, testSignature } from './stall/progress.js';
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

function foldFacts(facts: Facts, turn: TurnFacts, result: ToolCallResult, rules: FoldRules): { facts: Facts; turn: TurnFacts; classified: ResultClass } {
  const seq = facts.seq + 1;
  const effect = result.outcome.effect;
  const passedCommand = effect.kind === 'command' && effect.exitCode === 0 && !effect.blocked && !effect.timedOut && !effect.interrupted;
  const next = passedCommand ? { ...facts, seq, commandPasses: { ...facts.commandPasses, [effect.command.trim()]: seq } } : { ...facts, seq };
  if (isAppliedEdit(effect)) {
    const known = facts.editedPaths ?? [];
    const editedPaths = effect.kind === 'edit' && !known.includes(effect.path) ? [...known, effect.path] : known;
    return {
      facts: { ...next, lastEditSeq: seq, edits: facts.edits + 1, checks: afterEdit(facts.checks), editedPaths },
      turn: { ...turn, edited: true },
      classified: {},
    };
  }
  if (effect.kind === 'todo' && result.outcome.ok) {
    return { facts: { ...next, todo: effect.items }, turn: { ...turn, todoWritten: true }, classified: { todoBefore: facts.todo } };
  }
  // A run cut short by a stop proved nothing either way, so it is not a verification run.
  const check = effect.kind === 'command' && !effect.blocked && !effect.interrupted ? checkOf(effect.command, rules.verification, rules.testCmd) : null;
  if (
    check &&
    // Stryker disable next-line ConditionalExpression: a check is only found for a command, so the kind test alone cannot decide (it narrows the type)
    effect.kind === 'command'
  ) {
    const passed = isPass(effect.exitCode, result.outcome.content, check);
    const counts = passed && isExactTestCommand(effect.command, check.command);
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
      classified: { test: { command: check.name, signature: testSignature(effect.exitCode, result.outcome.content, passed) } },
    };
  }
  if (effect.kind === 'command' && !effect.blocked && rules.verification.commandsCountAsEdits) {
    return { facts: { ...next, lastEditSeq: seq, checks: afterEdit(facts.checks) }, turn: { ...turn, edited: true }, classified: {} };
  }
  return { facts: next, turn, classified: {} };
}

/** An edit makes every earlier pass stale. */
function afterEdit(checks: Facts['checks']): Facts['checks'] {
  return Object.fromEntries(Object.entries(checks).map(([name, check]) => [name, { ...check, passesSinceEdit: 0 }]));
}
