import { readFileSync } from 'node:fs';
import type { RecordedRun } from 'rein/testing';

/** What a results file says about the runs, and what merging it did. */
interface ResultsMerge {
  /** Runs the file names (its verdict replaced theirs). */
  listed: number;
  /** Of those, runs whose own record said otherwise. */
  overridden: number;
  /** Runs the file does not name that kept their own record (true or false). */
  keptOwn: number;
  /** Runs the file does not name, with no record of their own: unresolved when the file is a list of resolved ids, else unknown. */
  unknownMadeUnresolved: number;
  unknownKept: number;
}

interface ResultsFile {
  /** Instance → resolved, for every instance the file names. */
  known: Map<string, boolean>;
  /** The file lists only resolved ids: an instance it does not name did not resolve in that evaluation. */
  resolvedListOnly: boolean;
}

/**
 * Which runs resolved, from a SWE-bench results file: the harness's report
 * (`{ "resolved_ids": [...], "unresolved_ids": [...] }`), SWE-agent's
 * `{ "resolved": [...] }`, a per-instance report
 * (`{ "<instance>": { "resolved": true } }`) or a summary with
 * `{ "instances": [{ "instance_id", "resolved" }] }`. Runs are matched by
 * instance (or id).
 */
export function readResults(file: string): ResultsFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: not a JSON results file (${(error as Error).message})`);
  }
  const record = (parsed ?? {}) as Record<string, unknown>;
  const list = Array.isArray(record.resolved_ids) ? record.resolved_ids : Array.isArray(record.resolved) ? record.resolved : null;
  const known = new Map<string, boolean>();
  let negatives = false;
  if (list) {
    for (const id of list) known.set(String(id), true);
    for (const key of ['unresolved_ids', 'error_ids', 'completed_ids', 'submitted_ids', 'empty_patch_ids', 'incomplete_ids']) {
      const ids = record[key];
      if (Array.isArray(ids))
        for (const id of ids) {
          if (!known.has(String(id))) known.set(String(id), false);
          negatives = true;
        }
    }
  } else if (Array.isArray(record.instances)) {
    for (const entry of record.instances as Array<{ instance_id?: unknown; resolved?: unknown }>)
      if (typeof entry?.instance_id === 'string' && typeof entry.resolved === 'boolean') known.set(entry.instance_id, entry.resolved);
  } else {
    for (const [id, entry] of Object.entries(record)) {
      const resolved = (entry as { resolved?: unknown } | null)?.resolved;
      if (typeof resolved === 'boolean') known.set(id, resolved);
    }
  }
  if (known.size === 0)
    throw new Error(
      `${file}: no resolved instances found (expected "resolved_ids", "resolved", "instances": [{ instance_id, resolved }], or { instance: { resolved } })`,
    );
  return { known, resolvedListOnly: list !== null && !negatives };
}

/**
 * Merges a results file into the runs' own records: a run the file names takes
 * the file's verdict; a run it does not name keeps its own record, and one
 * with no record of its own is unresolved only when the file is a list of the
 * evaluation's resolved ids (so it names every run that resolved). Returns
 * what it did, for the warning `rein replay` prints.
 */
export function mergeResults(runs: RecordedRun[], results: ResultsFile): ResultsMerge {
  const merge: ResultsMerge = { listed: 0, overridden: 0, keptOwn: 0, unknownMadeUnresolved: 0, unknownKept: 0 };
  for (const run of runs) {
    const key = run.instance ?? run.id;
    const verdict = results.known.get(key);
    if (verdict !== undefined) {
      merge.listed++;
      if (run.resolved !== null && run.resolved !== verdict) merge.overridden++;
      run.resolved = verdict;
    } else if (run.resolved !== null) {
      merge.keptOwn++;
    } else if (results.resolvedListOnly) {
      merge.unknownMadeUnresolved++;
      run.resolved = false;
    } else {
      merge.unknownKept++;
    }
  }
  return merge;
}

/** The lines `rein replay` prints about a merge that did not simply name every run (empty when it did). */
export function mergeWarnings(file: string, merge: ResultsMerge, total: number): string[] {
  const lines: string[] = [];
  if (merge.overridden > 0)
    lines.push(`${file} overrides the record of ${merge.overridden} run${merge.overridden === 1 ? '' : 's'} (it says otherwise than the run's own file)`);
  const unlisted = merge.keptOwn + merge.unknownMadeUnresolved + merge.unknownKept;
  if (unlisted === 0) return lines;
  const parts = [
    merge.keptOwn > 0 ? `${merge.keptOwn} keep their own record` : '',
    merge.unknownMadeUnresolved > 0 ? `${merge.unknownMadeUnresolved} with no record of their own count as unresolved (the file lists the resolved ones)` : '',
    merge.unknownKept > 0 ? `${merge.unknownKept} stay unknown` : '',
  ].filter(Boolean);
  lines.push(`${file} names ${merge.listed} of ${total} runs; of the ${unlisted} it does not name, ${parts.join(', ')}`);
  return lines;
}
