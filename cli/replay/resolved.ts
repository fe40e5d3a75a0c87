import { readFileSync } from 'node:fs';
import type { RecordedRun } from 'rein/testing';

/**
 * Which runs resolved, from a SWE-bench results file: the harness's report
 * (`{ "resolved_ids": [...] }`), the older `{ "resolved": [...] }`, or a
 * per-instance report (`{ "<instance>": { "resolved": true } }`). Runs are
 * matched by instance (or id); a run the file does not name keeps what its
 * own record said.
 */
export function resolvedFrom(file: string): (run: RecordedRun) => boolean | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: not a JSON results file (${(error as Error).message})`);
  }
  const record = (parsed ?? {}) as Record<string, unknown>;
  const list = Array.isArray(record.resolved_ids) ? record.resolved_ids : Array.isArray(record.resolved) ? record.resolved : null;
  const known = new Map<string, boolean>();
  if (list) {
    for (const id of list) known.set(String(id), true);
    for (const key of ['unresolved_ids', 'error_ids', 'completed_ids', 'submitted_ids']) {
      const ids = record[key];
      if (Array.isArray(ids)) for (const id of ids) if (!known.has(String(id))) known.set(String(id), false);
    }
  } else {
    for (const [id, entry] of Object.entries(record)) {
      const resolved = (entry as { resolved?: unknown } | null)?.resolved;
      if (typeof resolved === 'boolean') known.set(id, resolved);
    }
  }
  if (known.size === 0) throw new Error(`${file}: no resolved instances found (expected "resolved_ids", "resolved", or { instance: { resolved } })`);
  const resolvedIds = new Set([...known].filter(([, value]) => value).map(([id]) => id));
  const hasUnresolvedList = [...known.values()].some((value) => !value);
  return (run) => {
    const key = run.instance ?? run.id;
    if (known.has(key)) return known.get(key)!;
    // With only a list of resolved ids, a run not on it did not resolve.
    if (list && !hasUnresolvedList) return resolvedIds.has(key);
    return run.resolved;
  };
}
