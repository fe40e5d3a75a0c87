import type { GraphTransition, GuardRef } from './graph-types.js';
import { guardText, nestedGuards, shortEvent } from './transition-label.js';

type Params = Record<string, unknown>;

const times = (value: unknown, one: string, many: string) => `${String(value ?? '?')} ${Number(value) === 1 ? one : many}`;

/**
 * What rein's built-in guards check, in a person's words, from their
 * parameters. A guard registered by a rules file, or one this version does
 * not know, reads as its name and parameters.
 */
const PHRASES: Record<string, (params: Params) => string> = {
  repeatedAction: ({ limit }) => `the same call with the same result ${times(limit, 'time', 'times')} in a row`,
  repeatedFailure: ({ limit }) => `the same call failed ${times(limit, 'time', 'times')} in a row`,
  alternation: ({ limit }) => `two calls alternating (A-B-A-B) over ${times(limit, 'call', 'calls')}`,
  editThrash: ({ limit }) => `${times(limit, 'edit', 'edits')} to one file without a passing test`,
  readLoop: ({ limit }) => `${times(limit, 'read or search', 'reads or searches')} of things already seen, with no edit`,
  longExploration: ({ limit }) => `${times(limit, 'read or search', 'reads or searches')} in a row with no edit`,
  nothingNew: ({ limit }) => `${times(limit, 'result', 'results')} in a row with nothing new`,
  noToolCalls: ({ limit }) => `${times(limit, 'reply', 'replies')} in a row without a tool call`,
  stallPersists: ({ maxNudges }) =>
    maxNudges === undefined ? 'a stall persists after its nudges' : `a stall persists after ${times(maxNudges, 'nudge', 'nudges')}`,
  testsPassedSinceLastEdit: () => 'tests passed since the last edit',
  stepLimitReached: ({ max }) => (max === undefined ? 'the step limit is reached' : `${times(max, 'step', 'steps')} used`),
  stepWarningDue: () => 'the step warning is due',
  timeWarningDue: () => 'the time warning is due',
  budgetExhausted: () => 'the token or cost budget is spent',
  contextOverflow: () => 'the view does not fit the window',
  needsSummary: () => 'the view is over the hard limit: summarize',
  summaryShrank: () => 'the summary shrank the view',
  hasToolCalls: () => 'the model called tools',
  promptTooLong: () => 'the provider rejected the prompt as too long',
  finishPending: () => 'a finish call is next',
  callsRemaining: () => 'tool calls are left to run',
  todoWritten: () => 'a todo list was written',
  editMade: () => 'an edit was made',
  testRun: () => 'the tests ran after the last edit',
  testFailed: () => 'the tests failed',
  testPassed: () => 'the tests passed',
  finishRefused: () => 'the gate refused a finish',
  editedSinceTest: () => 'an edit since the last test run',
  testedAfterEdit: () => 'an edit, then a test run',
  todoProgress: ({ count }) => `${times(count ?? 1, 'todo item', 'todo items')} done`,
  always: () => 'always',
};

const JOINERS: Record<string, string> = { and: ' and ', all: ' and ', or: ' or ', any: ' or ' };

/**
 * A guard as a person would say it: `readLoop` with `{ limit: 8 }` reads
 * "8 reads or searches in a row with no edit"; `and`/`or`/`not` combine
 * their parts. Unknown guards read as `name(params)`.
 *
 * @example phraseGuard({ name: 'stallPersists', params: { maxNudges: 3 } }) // 'a stall persists after 3 nudges'
 */
export function phraseGuard(guard: GuardRef): string {
  const nested = nestedGuards(guard);
  if (nested && (guard.name in JOINERS || guard.name === 'not')) {
    const grouped = (part: GuardRef) => part.name in JOINERS && (nestedGuards(part)?.length ?? 0) > 1 && nested.length > 1;
    const parts = nested.map((part) => (grouped(part) ? `(${phraseGuard(part)})` : phraseGuard(part)));
    return guard.name === 'not' ? `not ${parts.join(', ')}` : parts.join(JOINERS[guard.name]);
  }
  const phrase = PHRASES[guard.name];
  return phrase ? phrase(guard.params ?? {}) : guardText(guard);
}

/** True for guards this version can say in words. */
export function knowsGuard(name: string): boolean {
  return name in PHRASES || name in JOINERS || name === 'not';
}

// The gate and the stall detector's own guards: their names and parameter lists say little on a chart.
const SPOKEN_ON_CHART = new Set(['stallPersists', 'testsPassedSinceLastEdit']);

/**
 * A guard as the chart labels it: its name and parameters, except for the
 * gate and "stall persists", which read in words ("a stall persists after
 * 3 nudges" rather than `stallPersists(checks: [6], maxNudges: 3)`).
 *
 * @example chartGuard({ name: 'readLoop', params: { limit: 8 } }) // 'readLoop(limit: 8)'
 */
export function chartGuard(guard: GuardRef): string {
  return SPOKEN_ON_CHART.has(guard.name) ? phraseGuard(guard) : guardText(guard);
}

/**
 * One line of an arrow's label at the phase level: the guard that can take
 * it (the event is always the end of a turn, so it is left out), or the
 * event for an unguarded transition.
 *
 * @example phaseLine(verifyToFix) // 'testFailed'
 */
export function phaseLine(transition: Pick<GraphTransition, 'guard' | 'event'>): string {
  if (transition.guard) return chartGuard(transition.guard);
  return transition.event === null ? 'always' : shortEvent(transition.event);
}
