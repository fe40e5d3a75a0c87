import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../package-root.js';

/** The process that writes a trace: its pid and host, and the rein version it runs, in the start and resume lines. */
interface TraceWriter {
  pid: number;
  host: string;
  /** Which rein wrote the run (an ATIF export and the spans say so as the agent's version). */
  reinVersion: string;
}

let version: string | undefined;

/**
 * This process as a trace's writer, so a reader following the trace can tell
 * when the run's process is gone (killed without an end line).
 *
 * @example trace.log('start', { ...thisTraceWriter(), task });
 */
export function thisTraceWriter(): TraceWriter {
  version ??= (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  return { pid: process.pid, host: hostname(), reinVersion: version };
}

/**
 * Whether the writer named in a trace line is gone: true when it ran on this
 * host and no process has its pid now; null when this cannot be told (another
 * host, or a line that names no writer).
 *
 * @example if (writerGone(lastStart) === true) stopFollowing();
 */
export function writerGone(line: Record<string, unknown> | undefined): boolean | null {
  const pid = line?.pid;
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0 || line?.host !== hostname()) return null;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
