import { shortHash } from '../../lib/short-hash.js';
import type { TodoItem, ToolEffect } from '../../lib/tool-effect.js';
import type { ProgressKind } from '../../rules/stall-rules.js';
import type { ToolCallResult } from '../types.js';

/**
 * What the run has seen, so "new" can be judged: fingerprints of
 * observations, the states each edited file has been in, and the last result
 * of each verification command. Bounded, so a long run's snapshot stays small:
 * past the caps the oldest entries are forgotten (and would count as new).
 */
export interface ProgressMemory {
  seen: string[];
  files: Record<string, string[]>;
  tests: Record<string, TestSignature>;
}

/** A verification run's result as far as progress is concerned. */
interface TestSignature {
  passed: boolean;
  /** Failures the output reports, when it says; `null` when it does not. */
  failures: number | null;
  /** Fingerprint of the failing set (the names of what failed), or of the output when none can be read. */
  failing: string;
}

export const MAX_SEEN = 1024;
const MAX_FILE_STATES = 64;
const MAX_FILES = 256;

export function initialProgressMemory(): ProgressMemory {
  // Stryker disable next-line ArrayDeclaration: an observation's fingerprint is `tool:hash`, so a placeholder entry never matches one, and the cap drops it first
  return { seen: [], files: {}, tests: {} };
}

// Parts of an output that change without saying anything new: timings, clock times, dates, addresses, ids, temp paths.
const VOLATILE: readonly RegExp[] = [
  /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g,
  /\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b/g,
  /\b\d+(?:\.\d+)?\s?(?:ms|µs|us|ns|s|sec|secs|seconds)\b/g,
  // Timings named by a key rather than a unit: node:test's `duration_ms: 10.01`, `elapsed=3.2`, `took 45`.
  /\b(?:duration|elapsed|took|time)(?:_?(?:ms|us|ns|s|sec|seconds))?\b["']?\s*[:=]?\s*\d+(?:\.\d+)?/gi,
  /\b0x[0-9a-f]{6,}\b/gi,
  /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
  // The system's temp directory (macOS: /private/tmp) where a path starts, not /var/tmp or a project's own tmp/, which persist.
  /(?<=^|[\s"'=:,([])(?:\/private)?\/tmp\/[\w.-]+/gm,
];

/**
 * A fingerprint of an observation that ignores its volatile parts, so
 * `3 passed in 0.02s` and `3 passed in 0.03s` are the same observation while
 * `compiled 3/10` and `compiled 4/10` are not.
 *
 * @example fingerprint('ok in 0.02s') === fingerprint('ok in 1.5s') // true
 */
export function fingerprint(content: string): string {
  // The counters and the progress of one result ask for the same text's fingerprint in a row: remember the last one.
  if (content === last.content) return last.print;
  let text = content;
  for (const pattern of VOLATILE) text = text.replace(pattern, '#');
  last.content = content;
  last.print = shortHash(text);
  return last.print;
}

const last = { content: '', print: shortHash('') };

/** Lines that name a failing test, in the formats of common runners (pytest, node:test/TAP, jest/vitest, go, cargo, unittest). */
const FAILING_LINE = /^\s*(?:FAILED\s+(\S+)|FAIL:?\s+(\S+)|not ok \d+\s*-?\s*(.+)|--- FAIL:\s*(\S+)|[✗×✕]\s+(\S.*)|ERROR:?\s+(\S+)|test (\S+) \.\.\. FAILED)/gm;
/** Reported failure counts: "2 failed", "failures=2", "# fail 2", "Tests: 2 failed" (the largest one a runner prints is taken). */
const FAILURE_COUNT = /(?:\b(\d+)[ \t]+(?:failed|failures?|failing|errors?)\b|\bfailures=(\d+)|#[ \t]*fail[ \t]+(\d+))/gi;

/** What a verification run's output says about what failed. */
export function testSignature(exitCode: number | null, output: string, passed: boolean): TestSignature {
  const names = new Set<string>();
  for (const match of output.matchAll(FAILING_LINE)) {
    // Every alternative of FAILING_LINE captures at least one character, so a match always has a name.
    names.add(
      match
        .slice(1)
        .find((group) => group !== undefined)!
        .trim(),
    );
  }
  let failures: number | null = null;
  for (const match of output.matchAll(FAILURE_COUNT)) {
    const count = Number(match.slice(1).find((group) => group !== undefined));
    failures = Math.max(failures ?? 0, count);
  }
  const failing = names.size > 0 ? shortHash([...names].sort().join('\n')) : passed ? '' : `${exitCode}:${fingerprint(output)}`;
  return { passed, failures, failing };
}

/** Whether a verification result differs from the last one of the same command: a flip, fewer failures or another failing set. */
export function isTestChange(previous: TestSignature | undefined, next: TestSignature): boolean {
  if (!previous) return true;
  if (previous.passed !== next.passed) return true;
  if (
    next.failures !== null &&
    // Stryker disable next-line ConditionalExpression: a null previous count compares as 0, and no count is below 0
    previous.failures !== null &&
    next.failures < previous.failures
  ) {
    return true;
  }
  return previous.failing !== next.failing;
}

/** A todo update that adds an item or ticks one off (rewriting the same list, or only removing items, is not progress). */
export function isTodoChange(before: readonly TodoItem[], after: readonly TodoItem[]): boolean {
  const done = new Map(before.map((item) => [item.task, item.done]));
  return after.some((item) => !done.has(item.task) || (item.done && done.get(item.task) === false));
}

/** An edit that changed a file (the guard did not reject it). */
export function isAppliedEdit(effect: ToolEffect): effect is Extract<ToolEffect, { kind: 'edit' }> {
  return effect.kind === 'edit' && effect.applied;
}

/** How the facts classified a tool result, as far as progress needs it. */
export interface ResultClass {
  /** The verification command this result ran, and its signature, when it was one. */
  test?: { command: string; signature: TestSignature };
  /** The todo list before this result, for a todo update. */
  todoBefore?: readonly TodoItem[];
}

/**
 * The progress one tool result makes, and the memory after it. The single
 * definition of "new": every stall rule's resets and the run's ending read
 * these kinds.
 */
export function progressOf(result: ToolCallResult, memory: ProgressMemory, classified: ResultClass): { kinds: ProgressKind[]; memory: ProgressMemory } {
  const kinds: ProgressKind[] = [];
  let next = memory;
  const observed = fingerprintOf(result);
  if (!next.seen.includes(observed)) {
    kinds.push('newInfo');
    next = { ...next, seen: capped([...next.seen, observed], MAX_SEEN) };
  }
  const effect: ToolEffect = result.outcome.effect;
  if (isAppliedEdit(effect)) {
    const { after } = effect;
    if (after === undefined) {
      // An edit that reports no content hash (a tool registered from code) is taken as a new state.
      kinds.push('newFileState');
    } else {
      const states = next.files[effect.path] ?? (effect.before !== undefined ? [effect.before] : []);
      if (!states.includes(after)) kinds.push('newFileState');
      next = { ...next, files: cappedFiles({ ...next.files, [effect.path]: capped(states.includes(after) ? states : [...states, after], MAX_FILE_STATES) }) };
    }
  }
  if (
    classified.todoBefore &&
    result.outcome.ok &&
    // Stryker disable next-line ConditionalExpression: facts.ts sets todoBefore only for a todo update, so the kind test alone cannot decide
    effect.kind === 'todo' &&
    isTodoChange(classified.todoBefore, effect.items)
  ) {
    kinds.push('todoChange');
  }
  if (classified.test) {
    if (isTestChange(next.tests[classified.test.command], classified.test.signature)) kinds.push('testChange');
    next = { ...next, tests: { ...next.tests, [classified.test.command]: classified.test.signature } };
  }
  return { kinds, memory: next };
}

/** An observation is its tool and its content: the same text from another tool (an empty grep, an empty read) is another observation. */
function fingerprintOf(result: ToolCallResult): string {
  return `${result.name}:${fingerprint(result.outcome.content)}`;
}

function capped<T>(list: T[], max: number): T[] {
  return list.slice(Math.max(0, list.length - max));
}

function cappedFiles(files: Record<string, string[]>): Record<string, string[]> {
  const paths = Object.keys(files);
  return Object.fromEntries(paths.slice(Math.max(0, paths.length - MAX_FILES)).map((path) => [path, files[path]!]));
}
