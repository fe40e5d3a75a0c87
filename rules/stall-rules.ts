import type { ProgressKind } from '../lib/progress-kinds.js';

/**
 * The stall policy in one table. Each built-in stall rule: what it counts,
 * its default limit and nudge, which progress starts its count over, and what
 * it needs to be able to fire. The schema's defaults, the machine's counters,
 * the coverage witnesses and the README's rule reference are all derived
 * from this table.
 *
 * Two things hold for every rule (see machines/stall/):
 * - a nudge's episode ends as soon as anything new happens (any progress
 *   kind, lib/progress-kinds.ts), so the run ends `stalled` only when a rule holds again after
 *   `stall.maxNudges` nudges with nothing new in between;
 * - one stall gets one message: when a rule fires, every rule that saw the
 *   same turn at its limit starts over.
 */

export { PROGRESS_KINDS, type ProgressKind } from '../lib/progress-kinds.js';

interface StallRuleSpec {
  /** Default threshold. */
  limit: number;
  /** What the rule counts, for people: completes "{count} …". */
  counts: string;
  /** Progress that starts the count over (besides the pattern breaking, which `counts` says). */
  resetBy: readonly ProgressKind[];
  /** Tools a phase must be able to call for the rule to fire there; none means any phase. */
  needsTools?: readonly string[];
  /** Default nudge; `{limit}`, `{count}` and `{path}` are filled in. It always asks for something that counts as progress. */
  message: string;
  /** A catch-all: any rule's nudge starts its count over, so it only speaks for loops no other rule names. */
  yieldsToOthers?: true;
}

export const STALL_RULES = {
  repeatedAction: {
    limit: 3,
    counts: 'identical actions in a row with the same result',
    resetBy: ['newInfo', 'newFileState', 'todoChange', 'testChange'],
    message:
      'The same action produced the same result {count} times. Do something different: read something you have not seen, change a file, or run the tests.',
  },
  repeatedFailure: {
    limit: 3,
    counts: 'failures in a row of the same action with nothing new in the output',
    resetBy: ['newInfo', 'newFileState', 'todoChange', 'testChange'],
    message:
      'The same action failed {count} times in a row with nothing new in its output. Stop retrying it: read the error and the code it names, or take another route.',
  },
  alternation: {
    limit: 6,
    counts: 'actions alternating between the same two, showing nothing new',
    resetBy: ['newInfo', 'newFileState', 'todoChange', 'testChange'],
    message:
      'You are alternating between the same two actions and they show nothing new. Break the cycle: change a file, read something you have not seen, or write a different plan with update_todo.',
  },
  editThrash: {
    limit: 3,
    counts: 'edits that put a file back to an earlier version',
    resetBy: ['todoChange', 'testChange'],
    needsTools: ['edit_file'],
    message:
      'You have put {path} back to an earlier version {count} times. Step back: re-read the task and the failing output, then make one change you have not tried.',
  },
  readLoop: {
    limit: 5,
    counts: 'reads and searches since the last change to a file or the todo list that showed nothing new',
    resetBy: ['newFileState', 'todoChange'],
    needsTools: ['read_file', 'grep'],
    message:
      'You have read or searched {count} times for things you had already seen, without changing anything. Decide on a change and make it, or record what you learnt and what is next with update_todo.',
  },
  longExploration: {
    limit: 50,
    counts: 'reads and searches since the last change to a file or the todo list, new or not',
    resetBy: ['newFileState', 'todoChange'],
    needsTools: ['read_file', 'grep'],
    message:
      'You have read or searched {count} times since you last changed anything. If you know enough, make the change; if not, write down with update_todo what you still need to find and where.',
  },
  nothingNew: {
    limit: 6,
    counts: 'tool results in a row that showed nothing new (no new output, file state, todo item or test result)',
    resetBy: ['newInfo', 'newFileState', 'todoChange', 'testChange'],
    yieldsToOthers: true,
    message: 'Your last {count} actions showed nothing you had not seen before. Stop repeating: read something new, change a file, or run the tests.',
  },
  noToolCalls: {
    limit: 3,
    counts: 'replies in a row without a tool call',
    resetBy: [],
    message: 'You replied {count} times without using a tool. Use a tool to make progress (read, edit, run the tests), or call finish.',
  },
} as const satisfies Record<string, StallRuleSpec>;

export type StallRuleName = keyof typeof STALL_RULES;
export const STALL_RULE_NAMES = Object.keys(STALL_RULES) as StallRuleName[];

export function isStallRuleName(name: string): name is StallRuleName {
  return Object.hasOwn(STALL_RULES, name);
}

/** The default `stall.rules` list: every built-in rule at its default limit, in table order. */
export function defaultStallRuleList(): Array<{ guard: StallRuleName; limit: number }> {
  return STALL_RULE_NAMES.map((guard) => ({ guard, limit: STALL_RULES[guard].limit }));
}

/** The default nudge texts, by rule. */
export function defaultStallMessages(): Record<StallRuleName, string> {
  return Object.fromEntries(STALL_RULE_NAMES.map((name) => [name, STALL_RULES[name].message])) as Record<StallRuleName, string>;
}

/** What a rule saw, for people (trace lines, the visualizer): "8 reads and searches since …". */
export function describeStall(rule: string, count: number): string {
  return isStallRuleName(rule) ? `${count} ${STALL_RULES[rule].counts}` : `${rule} held (${count})`;
}
