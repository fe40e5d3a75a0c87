import { readFileSync } from 'node:fs';
import { writerGone } from '../../lib/trace/trace-writer.js';
import { readJsonLines } from './jsonl.js';
import { readRunMeta, traceFileOf } from './run-dir.js';

/**
 * The process still running a run, from its trace: the writer of its last start or resume line, when no end,
 * interruption or crash line followed, it ran on this host and a process with its pid is alive and was started before
 * that line was written (not a later process that got the pid again). Null when the run is not running or that
 * cannot be told.
 *
 * @example const live = liveRunWriter(runDir); if (live) throw new UsageError(`still running (pid ${live.pid})`);
 */
export function liveRunWriter(runDir: string): { pid: number } | null {
  let lines: Array<Record<string, unknown>>;
  try {
    lines = readJsonLines<Record<string, unknown>>(traceFileOf(runDir, readRunMeta(runDir))).values;
  } catch {
    return null;
  }
  let opened = lines.length - 1;
  while (opened >= 0 && lines[opened]!.kind !== 'start' && lines[opened]!.kind !== 'resume') opened--;
  if (opened < 0 || lines.slice(opened).some((line) => line.kind === 'end' || line.kind === 'interrupted' || line.kind === 'crash')) return null;
  const opener = lines[opened]!;
  if (writerGone(opener) !== false) return null;
  const pid = opener.pid as number;
  const proc = processOf(pid);
  // Killed and not yet reaped (a zombie) is gone; a process started after the line was written only reused the pid.
  if (proc && (proc.state === 'Z' || proc.state === 'X' || (typeof opener.t === 'number' && proc.startedAt > opener.t + 1))) return null;
  return { pid };
}

/** A process's state letter and when it started (seconds since the epoch), from /proc; null where that cannot be read. */
function processOf(pid: number): { state: string; startedAt: number } | null {
  try {
    const boot = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    // Fields after the command's closing parenthesis: the state is the 1st, starttime (clock ticks since boot) the 20th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold `) ` itself: the fields start after its last parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    return Number.isFinite(boot) && Number.isFinite(ticks) ? { state: fields[0]!, startedAt: boot + ticks / 100 } : null;
  } catch {
    return null;
  }
}
