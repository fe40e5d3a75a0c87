import type { Facts, StallCounter, StallState, ToolCallResult, TurnFacts } from './types.js';
import type { TodoItem } from '../tools/types.js';
import { shortHash } from '../lib/short-hash.js';
import { stableStringify } from '../lib/stable-json.js';

/** How the verification command is recognized and judged. */
export interface VerificationRules {
  testCmd: string;
  passExitCode: number;
  passPattern?: string;
  /** With a shell-only tool surface edits are commands: any other command resets the gate. */
  commandsCountAsEdits?: boolean;
}

export const STALL_RULE_NAMES = ['repeatedAction', 'repeatedFailure', 'alternation', 'editThrash', 'readLoop', 'noToolCalls'] as const;

export function initialFacts(todo: TodoItem[] = []): Facts {
  return { seq: 0, lastEditSeq: -1, lastTestSeq: -1, lastPassSeq: -1, lastTestPassed: null, phaseStartSeq: 0, edits: 0, testRuns: 0, todo, gateRefusals: 0 };
}

export function initialTurn(): TurnFacts {
  return { edited: false, testRan: false, testPassed: null, todoWritten: false, finishRefused: false };
}

export function initialStall(): StallState {
  const counters: Record<string, StallCounter> = {};
  for (const name of STALL_RULE_NAMES) counters[name] = { count: 0, peak: 0, firings: 0 };
  return { counters, lastActions: [], lastOutcome: null, lastFailedAction: null, editsPerFile: {}, busiestFile: null, fired: null };
}

/** Whitespace-normalized, so `npm  test` and `npm test` are the same command. */
const squeeze = (text: string) => text.trim().replace(/\s+/g, ' ');

/** True when `command` runs the verification command (the seed's substring rule, whitespace-normalized): it counts as a test run. */
export function isTestCommand(command: string, testCmd: string): boolean {
  return testCmd.trim().length > 0 && squeeze(command).includes(squeeze(testCmd));
}

/**
 * True when `command` is the verification command itself, optionally after
 * `cd <dir> &&` and with stderr merged: only such a run's pass satisfies the
 * gate. Under the substring rule alone `echo <cmd>`, `<cmd> || true` or
 * `<cmd> | tail` (tail's exit code) would pass without the tests passing.
 */
export function isExactTestCommand(command: string, testCmd: string): boolean {
  if (testCmd.trim().length === 0) return false;
  return squeeze(command).replace(/^cd \S+ && /, '').replace(/ 2>&1$/, '') === squeeze(testCmd);
}

/** True when a test run's exit code (and output, if a pattern is set) counts as a pass. */
export function isPass(exitCode: number | null, output: string, rules: VerificationRules): boolean {
  if (exitCode !== rules.passExitCode) return false;
  return rules.passPattern ? new RegExp(rules.passPattern, 'm').test(output) : true;
}

/**
 * Folds one turn's tool results, in call order, into the facts, the turn
 * facts and the stall counters. The single place where derived facts are
 * computed; guards only compare what it produces.
 */
export function foldResults(
  state: { facts: Facts; turn: TurnFacts; stall: StallState },
  results: readonly ToolCallResult[], rules: VerificationRules,
): { facts: Facts; turn: TurnFacts; stall: StallState } {
  let { facts, turn, stall } = state;
  for (const result of results) {
    ({ facts, turn } = foldFacts(facts, turn, result, rules));
    stall = foldStall(stall, result, facts);
  }
  return { facts, turn, stall };
}

function foldFacts(facts: Facts, turn: TurnFacts, result: ToolCallResult, rules: VerificationRules): { facts: Facts; turn: TurnFacts } {
  const seq = facts.seq + 1;
  const effect = result.outcome.effect;
  const next = { ...facts, seq };
  if (effect.kind === 'edit' && effect.applied) {
    return { facts: { ...next, lastEditSeq: seq, edits: facts.edits + 1 }, turn: { ...turn, edited: true } };
  }
  if (effect.kind === 'todo' && result.outcome.ok) {
    return { facts: { ...next, todo: effect.items }, turn: { ...turn, todoWritten: true } };
  }
  // A test run cut short by a stop proved nothing either way, so it is not a test run.
  if (effect.kind === 'command' && !effect.blocked && !effect.interrupted && isTestCommand(effect.command, rules.testCmd)) {
    const passed = isPass(effect.exitCode, result.outcome.content, rules);
    return {
      facts: { ...next, lastTestSeq: seq, testRuns: facts.testRuns + 1, lastTestPassed: passed, lastPassSeq: passed && isExactTestCommand(effect.command, rules.testCmd) ? seq : facts.lastPassSeq },
      turn: { ...turn, testRan: true, testPassed: passed },
    };
  }
  if (effect.kind === 'command' && !effect.blocked && rules.commandsCountAsEdits) {
    return { facts: { ...next, lastEditSeq: seq }, turn: { ...turn, edited: true } };
  }
  return { facts: next, turn };
}

/** An action failed: an error result, a rejected edit, a blocked or failing command. */
export function isFailure(result: ToolCallResult): boolean {
  const { outcome } = result;
  if (!outcome.ok) return true;
  const effect = outcome.effect;
  if (effect.kind === 'edit') return !effect.applied;
  if (effect.kind === 'command') return effect.blocked || effect.timedOut || effect.exitCode !== 0;
  return false;
}

function foldStall(stall: StallState, result: ToolCallResult, facts: Facts): StallState {
  const action = shortHash(result.name + stableStringify(result.args));
  const outcome = shortHash(result.outcome.content.slice(0, 500));
  const [previous, beforePrevious] = [stall.lastActions[0], stall.lastActions[1]];
  const counters = { ...stall.counters };
  const bump = (name: string, count: number, progress: boolean) => {
    const old = counters[name]!;
    counters[name] = { count, peak: Math.max(old.peak, count), firings: progress ? 0 : old.firings };
  };
  const repeated = action === previous && outcome === stall.lastOutcome;
  bump('repeatedAction', repeated ? counters.repeatedAction!.count + 1 : 1, !repeated);
  const failed = isFailure(result);
  const failedAgain = failed && action === stall.lastFailedAction;
  bump('repeatedFailure', failed ? (failedAgain ? counters.repeatedFailure!.count + 1 : 1) : 0, !failedAgain);
  const alternating = action === beforePrevious && action !== previous;
  const altCount = alternating ? Math.max(counters.alternation!.count, 2) + 1 : action !== previous && previous !== undefined ? 2 : 1;
  bump('alternation', altCount, !alternating);
  let { editsPerFile, busiestFile } = stall;
  const effect = result.outcome.effect;
  if (effect.kind === 'edit' && effect.applied) {
    editsPerFile = { ...editsPerFile, [effect.path]: (editsPerFile[effect.path] ?? 0) + 1 };
    if ((editsPerFile[effect.path] ?? 0) >= (editsPerFile[busiestFile ?? ''] ?? 0)) busiestFile = effect.path;
    bump('editThrash', editsPerFile[busiestFile!] ?? 0, false);
    bump('readLoop', 0, true);
  } else if (effect.kind === 'read' || effect.kind === 'search') {
    bump('readLoop', counters.readLoop!.count + 1, false);
  }
  if (facts.lastPassSeq === facts.seq) {
    editsPerFile = {};
    busiestFile = null;
    bump('editThrash', 0, true);
  }
  return { ...stall, counters, lastActions: [action, previous ?? ''], lastOutcome: outcome, lastFailedAction: failed ? action : null, editsPerFile, busiestFile };
}

/** A reply without tool calls: the no-tool-call streak grows; with calls it breaks. */
export function foldReply(stall: StallState, hadToolCalls: boolean): StallState {
  const counters: Record<string, StallCounter> = {};
  for (const [name, counter] of Object.entries(stall.counters)) counters[name] = { ...counter, peak: counter.count };
  const old = counters.noToolCalls!;
  counters.noToolCalls = hadToolCalls ? { count: 0, peak: 0, firings: 0 } : { count: old.count + 1, peak: old.count + 1, firings: old.firings };
  return { ...stall, counters, fired: null };
}

/**
 * After a nudge: the firing is remembered on the rule that fired, and every
 * rule that saw the same pattern (its peak at its limit) starts counting
 * over, so one stall is nudged once, not once per rule that noticed it.
 */
export function noteFiring(stall: StallState, rule: string, limits: Record<string, number> = {}): StallState {
  const old = stall.counters[rule] ?? { count: 0, peak: 0, firings: 0 };
  const counters = { ...stall.counters };
  for (const [name, limit] of Object.entries(limits)) {
    const counter = counters[name];
    if (counter && counter.peak >= limit) counters[name] = { ...counter, count: 0, peak: 0 };
  }
  counters[rule] = { count: 0, peak: 0, firings: old.firings + 1 };
  const editsPerFile = rule === 'editThrash' && stall.busiestFile ? { ...stall.editsPerFile, [stall.busiestFile]: 0 } : stall.editsPerFile;
  return { ...stall, counters, editsPerFile, fired: rule };
}
