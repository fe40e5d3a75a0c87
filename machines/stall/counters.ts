import { shortHash } from '../../lib/short-hash.js';
import { stableStringify } from '../../lib/stable-json.js';
import { type EffectKind, type EffectReaders, readEffect } from '../../lib/tool-effect.js';
import { isStallRuleName, type ProgressKind, STALL_RULE_NAMES, STALL_RULES, type StallRuleName } from '../../rules/stall-rules.js';
import type { StallCounter, StallState, ToolCallResult } from '../types.js';
import { fingerprint, initialProgressMemory, isAppliedEdit, progressOf, type ResultClass } from './progress.js';

export function initialStall(): StallState {
  const counters: Record<string, StallCounter> = {};
  for (const name of STALL_RULE_NAMES) counters[name] = { count: 0, peak: 0, firings: 0 };
  return {
    counters,
    lastActions: [],
    lastOutcome: null,
    lastFailedAction: null,
    thrashFile: null,
    memory: initialProgressMemory(),
    // Stryker disable next-line ArrayDeclaration: foldReply empties it on the first reply, before any tool result is folded
    progress: [],
    fired: null,
  };
}

/** An action failed: an error result, a rejected edit, a blocked or failing command. */
export function isFailure(result: ToolCallResult): boolean {
  return !result.outcome.ok || readEffect(result.outcome.effect, FAILED_ALTHOUGH_OK);
}

const never = () => false;

// A call that reported ok but failed all the same, per kind of effect (a new kind fails tsc here until it says).
const FAILED_ALTHOUGH_OK: EffectReaders<boolean> = {
  edit: (edit) => !edit.applied,
  command: (run) => run.blocked || run.timedOut || run.exitCode !== 0,
  read: never,
  search: never,
  job: never,
  todo: never,
  finish: never,
  mcp: never,
  none: never,
};

// The kinds that explore (readLoop and longExploration count them); a new kind fails tsc here until it says.
const EXPLORES: Readonly<Record<EffectKind, boolean>> = {
  read: true,
  search: true,
  edit: false,
  command: false,
  job: false,
  todo: false,
  finish: false,
  mcp: false,
  none: false,
};

/**
 * One tool result through the stall counters. Each rule's count follows its
 * pattern (see rules/stall-rules.ts for what each counts), after the progress
 * the result made has started over the counts of the rules it resets; any
 * progress at all ends every rule's stall episode (its nudges start over),
 * so a run only ends stalled when nothing new happens across the nudges.
 */
export function foldStall(stall: StallState, result: ToolCallResult, classified: ResultClass): StallState {
  const { kinds, memory } = progressOf(result, stall.memory, classified);
  const action = shortHash(result.name + stableStringify(result.args));
  const outcome = fingerprint(result.outcome.content);
  const [previous, beforePrevious] = [stall.lastActions[0], stall.lastActions[1]];
  const counters = { ...stall.counters };
  const set = (name: StallRuleName, count: number) => {
    const old = counters[name] ?? { count: 0, peak: 0, firings: 0 };
    counters[name] = { ...old, count, peak: Math.max(old.peak, count) };
  };
  const get = (name: StallRuleName) => counters[name]?.count ?? 0;
  const anything = kinds.length > 0;
  // Progress first: it ends every rule's stall episode (a rule of one's own too: its nudges start over) and starts
  // the counts it resets over; this result then counts afresh.
  for (const [name, counter] of Object.entries(counters)) {
    if (!anything) break;
    // Stryker disable next-line ArrayDeclaration: a rule of one's own only counts its nudges (its count stays 0), so no progress kind has a count to start over
    const resetBy: readonly ProgressKind[] = isStallRuleName(name) ? STALL_RULES[name].resetBy : [];
    const reset = resetBy.some((kind) => kinds.includes(kind));
    counters[name] = { ...counter, firings: 0, ...(reset ? { count: 0, peak: 0 } : {}) };
  }
  set('repeatedAction', action === previous && outcome === stall.lastOutcome ? get('repeatedAction') + 1 : 1);
  const failed = isFailure(result);
  // Something new in the output has already started the count over above (resetBy), so only the action decides here.
  set('repeatedFailure', !failed ? 0 : action === stall.lastFailedAction ? get('repeatedFailure') + 1 : 1);
  const alternating = action === beforePrevious && action !== previous && !anything;
  set('alternation', alternating ? Math.max(get('alternation'), 2) + 1 : action !== previous && previous !== undefined ? 2 : 1);
  const effect = result.outcome.effect;
  let thrashFile = stall.thrashFile;
  if (isAppliedEdit(effect) && !kinds.includes('newFileState')) {
    set('editThrash', get('editThrash') + 1);
    thrashFile = effect.path;
  }
  // A read or search that shows something new is exploration, not a loop: it does not advance readLoop (repeats do), only the
  // far higher longExploration cap; nothingNew counts any result that made no progress at all.
  if (EXPLORES[effect.kind]) {
    if (!kinds.includes('newInfo')) set('readLoop', get('readLoop') + 1);
    set('longExploration', get('longExploration') + 1);
  }
  set('nothingNew', anything ? 0 : get('nothingNew') + 1);

  return {
    ...stall,
    counters,
    memory,
    thrashFile,
    // Stryker disable next-line StringLiteral: an action is a short hash, so no placeholder for 'none' ever equals one
    lastActions: [action, previous ?? ''],
    lastOutcome: outcome,
    lastFailedAction: failed ? action : null,
    progress: [...stall.progress, ...kinds],
  };
}

/** A reply arrived: every peak starts from the count, and the no-tool-call streak grows or breaks. */
export function foldReply(stall: StallState, hadToolCalls: boolean): StallState {
  const counters: Record<string, StallCounter> = {};
  for (const [name, counter] of Object.entries(stall.counters)) counters[name] = { ...counter, peak: counter.count };
  const old = counters.noToolCalls ?? { count: 0, peak: 0, firings: 0 };
  const count = hadToolCalls ? 0 : old.count + 1;
  counters.noToolCalls = { ...old, count, peak: count };
  return { ...stall, counters, progress: [], fired: null };
}

/**
 * After a nudge: the firing is counted on the rule that fired, and every
 * rule that saw the same turn (its peak at its limit) starts counting over,
 * so one stall is nudged once, not once per rule that noticed it; a
 * catch-all rule (nothingNew) starts over on any nudge.
 */
export function noteFiring(stall: StallState, rule: string, limits: Readonly<Record<string, number>>): StallState {
  const old = stall.counters[rule] ?? { count: 0, peak: 0, firings: 0 };
  const counters = { ...stall.counters };
  for (const [name, limit] of Object.entries(limits)) {
    const counter = counters[name];
    const yields = isStallRuleName(name) && 'yieldsToOthers' in STALL_RULES[name];
    if (counter && (counter.peak >= limit || yields)) counters[name] = { ...counter, count: 0, peak: 0 };
  }
  counters[rule] = { count: 0, peak: 0, firings: old.firings + 1 };
  return { ...stall, counters, fired: rule };
}
