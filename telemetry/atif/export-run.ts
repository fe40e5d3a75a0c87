import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
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
  return exportWithChildren(path, 0);
}

/** How deep delegated children are embedded: far past any depth the rules allow, a bound against a looping trace. */
const MAX_EMBED_DEPTH = 8;

function exportWithChildren(path: string, depth: number): AtifTrajectory {
  const found = findRunFiles(path);
  const trace = readJsonLines<TraceRecord>(found.tracePath);
  if (!trace.values.some((line) => line.kind === 'start')) throw new UsageError(`${found.tracePath} is not a rein trace (no start line)`);
  const record = found.recordPath ? readJsonLines(found.recordPath).values : null;
  const built = buildTrajectory({ lines: trace.values, record, sessionId: sessionIdOf(trace.values, found.tracePath), agentVersion: reinVersion() });
  const start = trace.values.find((line) => line.kind === 'start');
  // The run directory its children were put in: the start line says (a --trace elsewhere is not beside it).
  const runDir = typeof start?.runDir === 'string' ? start.runDir : dirname(found.tracePath);
  const trajectory = depth < MAX_EMBED_DEPTH ? embedChildren(built, trace.values, runDir, depth) : built;
  const damaged = trace.bad.length > 0 ? [`${trace.bad.length} trace line(s) did not parse (a cut last line or damage) and were skipped.`] : [];
  const withNotes = damaged.length > 0 ? { ...trajectory, notes: [trajectory.notes, ...damaged].filter(Boolean).join(' ') } : trajectory;
  const checked = reinTrajectorySchema.safeParse(withNotes);
  if (!checked.success) throw new Error(`rein built an invalid ATIF trajectory: ${formatZodError(checked.error, { input: withNotes }).join('; ')}`);
  return checked.data;
}

/**
 * ATIF v1.7's subagents: each delegated child's own trajectory embedded in `subagent_trajectories` (its
 * `trajectory_id` is its session id), and the `delegate` call's observation result pointing at it by that id.
 * Only children whose run directory lies inside this run's (`<run>/agents/…`, where rein puts them) are read.
 */
function embedChildren(trajectory: AtifTrajectory, lines: readonly TraceRecord[], runDir: string, depth: number): AtifTrajectory {
  const inside = `${resolve(runDir)}${sep}`;
  const children = new Map<string, { callId: string; dir: string }>();
  for (const line of lines)
    if (line.kind === 'agent' && line.event === 'start' && typeof line.runDir === 'string' && typeof line.callId === 'string')
      if (resolve(line.runDir).startsWith(inside) && existsSync(line.runDir)) children.set(resolve(line.runDir), { callId: line.callId, dir: line.runDir });
  if (children.size === 0) return trajectory;
  const embedded: AtifTrajectory[] = [];
  const refs = new Map<string, string[]>();
  for (const { callId, dir } of children.values()) {
    const child = exportWithChildren(dir, depth + 1);
    const id = child.trajectory_id ?? child.session_id ?? dir;
    if (embedded.some((entry) => entry.trajectory_id === id)) continue;
    embedded.push({ ...child, trajectory_id: id });
    refs.set(callId, [...(refs.get(callId) ?? []), id]);
  }
  const steps = trajectory.steps.map((step) => {
    const results = step.observation?.results;
    if (!results?.some((result) => result.source_call_id && refs.has(result.source_call_id))) return step;
    return {
      ...step,
      observation: {
        ...step.observation,
        results: results.map((result) => {
          const ids = result.source_call_id ? refs.get(result.source_call_id) : undefined;
          return ids ? { ...result, subagent_trajectory_ref: ids.map((id) => ({ trajectory_id: id })) } : result;
        }),
      },
    };
  });
  return { ...trajectory, steps, subagent_trajectories: embedded };
}

/** Writes a trajectory atomically (a temp file renamed over the target), so a reader never sees half a file. */
export function writeTrajectory(path: string, trajectory: AtifTrajectory): void {
  writeFileAtomic(path, `${JSON.stringify(trajectory, null, 2)}\n`);
}
