import fs from 'node:fs';
import { readCommandLine, readProcStat } from '../../tools/sandbox/lifetime/proc.js';

/** A process's arguments, NUL-separated as in /proc; '' when it is gone. */
export function commandLine(pid: number | string): string {
  return readCommandLine(pid);
}

/** PIDs of live processes whose command line contains `marker` (Linux /proc). */
export function processesWithArgument(marker: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && commandLine(entry).includes(marker))
    .map(Number);
}

/** A number unlikely to appear in any other process's arguments, for `sleep 300.<n>`. */
export function uniqueMarker(): string {
  return `300.${process.pid}${Math.floor(Math.random() * 1e6)}`;
}

/** PIDs of live processes whose environment has `entry` (`NAME=value`) as a whole variable (Linux /proc). */
export function processesWithEnvironment(entry: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid) && environmentOf(pid).includes(entry))
    .map(Number);
}

function environmentOf(pid: string): string[] {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/** A process's state letter and parent pid; null when it is gone. */
function stateAndParent(pid: number | string): { state: string; parent: number } | null {
  const stat = readProcStat(pid);
  return stat ? { state: stat.state, parent: stat.ppid } : null;
}

/** SIGKILL for each, those already gone skipped: so that a failed test leaves nothing running. */
export function killQuietly(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

/** A process for a failure message: its command line, state and parent, e.g. `sleep 300 (S, parent 1)`; `gone` when it has exited. */
export function describeProcess(pid: number | string): string {
  const seen = stateAndParent(pid);
  return seen ? `${commandLine(pid).replaceAll('\0', ' ').trim().slice(0, 200)} (${seen.state}, parent ${seen.parent})` : 'gone';
}
