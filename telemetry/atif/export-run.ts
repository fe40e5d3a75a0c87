import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { TraceRecord } from 'rein/formats';
import { formatZodError, packageRoot, UsageError } from 'rein/lib';
import { RUN_FILES, readJsonLines, readRunMeta, traceFileOf } from 'rein/run';
import { writeFileAtomic } from 'rein/tools';
import { sessionIdOf } from '../session-id.js';
import { type AtifTrajectory, reinTrajectorySchema } from './atif-schema.js';
import { buildTrajectory } from './build-trajectory.js';

/** A run's files as the exporter finds them from a run directory or a trace file. */
interface RunFilesFound {
  tracePath: string;
  /** The record, or null when there is none (a trace kept alone, or a run killed before it wrote one). */
  recordPath: string | null;
}

/**
 * Finds a run's trace and record from what a user passes: a run directory
 * (its `run.json` says where a `--trace` elsewhere went) or a trace file
 * (its record is beside it, or in the run directory its start line names).
 */
function findRunFiles(path: string): RunFilesFound {
  if (!existsSync(path)) throw new UsageError(`not found: ${path}`);
  if (statSync(path).isDirectory()) {
    let tracePath = join(path, RUN_FILES.trace);
    if (existsSync(join(path, RUN_FILES.meta))) tracePath = traceFileOf(path, readRunMeta(path));
    if (!existsSync(tracePath)) throw new UsageError(`${path} holds no trace (${RUN_FILES.trace})`);
    return { tracePath, recordPath: existing(join(path, RUN_FILES.record)) };
  }
  const beside = existing(join(dirname(path), RUN_FILES.record));
  if (beside) return { tracePath: path, recordPath: beside };
  const start = readJsonLines<TraceRecord>(path).values.find((line) => line.kind === 'start');
  const runDir = typeof start?.runDir === 'string' ? start.runDir : null;
  return { tracePath: path, recordPath: runDir ? existing(join(runDir, RUN_FILES.record)) : null };
}

function existing(path: string): string | null {
  return existsSync(path) ? path : null;
}

/** rein's version, as the ATIF `agent.version`. */
function reinVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * The ATIF trajectory of a run, checked against the ATIF-v1.7 model before
 * it is returned: an export that would not validate is a rein bug and throws.
 *
 * @example const trajectory = exportRunAsAtif('.rein/runs/20260101T000000Z-ab12');
 */
export function exportRunAsAtif(path: string): AtifTrajectory {
  const found = findRunFiles(path);
  const trace = readJsonLines<TraceRecord>(found.tracePath);
  if (!trace.values.some((line) => line.kind === 'start')) throw new UsageError(`${found.tracePath} is not a rein trace (no start line)`);
  const record = found.recordPath ? readJsonLines(found.recordPath).values : null;
  const trajectory = buildTrajectory({ lines: trace.values, record, sessionId: sessionIdOf(trace.values, found.tracePath), agentVersion: reinVersion() });
  const damaged = trace.bad.length > 0 ? [`${trace.bad.length} trace line(s) did not parse (a cut last line or damage) and were skipped.`] : [];
  const withNotes = damaged.length > 0 ? { ...trajectory, notes: [trajectory.notes, ...damaged].filter(Boolean).join(' ') } : trajectory;
  const checked = reinTrajectorySchema.safeParse(withNotes);
  if (!checked.success) throw new Error(`rein built an invalid ATIF trajectory: ${formatZodError(checked.error, { input: withNotes }).join('; ')}`);
  return checked.data;
}

/** Writes a trajectory atomically (a temp file renamed over the target), so a reader never sees half a file. */
export function writeTrajectory(path: string, trajectory: AtifTrajectory): void {
  writeFileAtomic(path, `${JSON.stringify(trajectory, null, 2)}\n`);
}
