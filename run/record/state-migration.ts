import { UsageError } from '../../lib/errors.js';
import { initialApprovals } from '../../machines/approval-handling.js';
import type { HarnessContext } from '../../machines/types.js';

/**
 * Saved states of older rein versions, brought up to the current format so
 * `rein resume` continues them. Each step adds what its format lacked, with
 * the value a run of that version had in effect; what a state already holds
 * is never changed. Format 1 (before the machine was rebuilt around one
 * `setup()`, with other state names and another context) cannot be migrated.
 */

/** Bumped when the saved machine context changes shape; a step below brings the previous format up to it. */
export const STATE_VERSION = 4;
/** The oldest format a step below starts from. */
const OLDEST_MIGRATABLE_VERSION = 2;

type SavedContext = Omit<Partial<HarnessContext>, 'facts'> & { facts?: Partial<HarnessContext['facts']> };
type Step = (context: SavedContext) => SavedContext;

/** What the facts gained without a format change of their own (runs saved in format 3 may lack them too). */
const factsSince2 = (facts: SavedContext['facts']): SavedContext['facts'] => ({
  ...facts,
  editedPaths: facts?.editedPaths ?? [],
  commandPasses: facts?.commandPasses ?? {},
});

const STEPS: Record<number, Step> = {
  // 2 → 3: approvals entered the context (a run of format 2 had no approval rules: nothing pending, nothing decided).
  2: (context) => ({ ...context, approvals: context.approvals ?? initialApprovals(), facts: factsSince2(context.facts) }),
  // 3 → 4: the phaseChange hooks' `from` and the result held for postToolUse hooks (never held at a checkpoint).
  3: (context) => ({
    ...context,
    previousPhase: context.previousPhase ?? context.phase,
    heldResults: context.heldResults ?? null,
    facts: factsSince2(context.facts),
  }),
};

/**
 * The saved state in the current format: unchanged when it is current, migrated step by step from an older
 * format, and a usage error naming the file for a format that cannot be migrated (1, a newer rein's, a damaged file).
 *
 * @example const state = migrateSavedState(JSON.parse(text), 'run/state.json');
 */
export function migrateSavedState<T extends { version: unknown; snapshot: unknown }>(raw: T, path: string): T & { version: typeof STATE_VERSION } {
  const { version } = raw;
  if (version === STATE_VERSION) return raw as T & { version: typeof STATE_VERSION };
  if (typeof version !== 'number' || !Number.isInteger(version))
    throw new UsageError(`${path}: not a rein state file (its "version" is ${JSON.stringify(version) ?? 'missing'})`);
  if (version > STATE_VERSION)
    throw new UsageError(
      `${path}: saved by a newer rein (state format ${version}; this rein reads ${OLDEST_MIGRATABLE_VERSION} to ${STATE_VERSION}); resume it with that rein`,
    );
  if (version < OLDEST_MIGRATABLE_VERSION)
    throw new UsageError(
      `${path}: state format ${version} comes from a rein before the statechart was rebuilt and cannot be migrated (this rein reads ${OLDEST_MIGRATABLE_VERSION} to ${STATE_VERSION}); resume it with the rein that started it, or start the task again`,
    );
  const snapshot = raw.snapshot as { context?: SavedContext } | null;
  if (!snapshot || typeof snapshot !== 'object' || !snapshot.context || typeof snapshot.context !== 'object')
    throw new UsageError(`${path}: state format ${version} without a machine context; it cannot be migrated`);
  let context = snapshot.context;
  for (let from = version; from < STATE_VERSION; from++) context = STEPS[from]!(context);
  return { ...raw, version: STATE_VERSION, snapshot: { ...snapshot, context } };
}

interface StateNodeLike {
  states: Record<string, StateNodeLike>;
}

/**
 * Refuses a saved state the chart built from these rules does not have (a phase disabled since, a state a newer rein
 * added): XState would restore it into nowhere. The message names the state and the file.
 */
export function checkRestorable(machine: { root: StateNodeLike }, value: unknown, path: string): void {
  const missing = missingState(machine.root, value, []);
  if (missing)
    throw new UsageError(
      `${path}: the run was saved in state ${missing}, which the chart built from these rules does not have (were the rules or the rein version changed?); it cannot be resumed`,
    );
}

function missingState(node: StateNodeLike, value: unknown, at: string[]): string | null {
  if (typeof value === 'string') return node.states[value] ? null : [...at, value].join('.');
  if (!value || typeof value !== 'object') return at.join('.') || '(none)';
  for (const [key, child] of Object.entries(value)) {
    const next = node.states[key];
    if (!next) return [...at, key].join('.');
    const inner = missingState(next, child, [...at, key]);
    if (inner) return inner;
  }
  return null;
}
