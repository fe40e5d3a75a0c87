import { hostname } from 'node:os';

/** The process that writes a trace: its pid and host, in the start and resume lines. */
interface TraceWriter {
  pid: number;
  host: string;
}

/**
 * This process as a trace's writer, so a reader following the trace can tell
 * when the run's process is gone (killed without an end line).
 *
 * @example trace.log('start', { ...thisTraceWriter(), task });
 */
export function thisTraceWriter(): TraceWriter {
  return { pid: process.pid, host: hostname() };
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
