import fs from 'node:fs';

/** What the process layer reads of `/proc/<pid>/stat`. */
interface ProcStat {
  /** State letter: R, S, D, T, Z (zombie), X (dead), … */
  state: string;
  ppid: number;
  pgrp: number;
  /** Start time in clock ticks after boot: tells a pid reused by a new process from the old one. */
  startTime: number;
}

/**
 * The one reader of `/proc/<pid>/stat` ("pid (comm) state ppid pgrp … starttime …"); null when the process is gone
 * or there is no /proc. `comm` may hold spaces and parentheses, so the fields are read after its last `)`.
 *
 * @example readProcStat(process.pid)?.state // 'R'
 */
export function readProcStat(pid: number | string): ProcStat | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // After comm: state is field 3 of stat(5), ppid 4, pgrp 5, starttime 22.
  const [state, ppid, pgrp] = fields;
  if (!state || ppid === undefined || pgrp === undefined) return null;
  return { state, ppid: Number(ppid), pgrp: Number(pgrp), startTime: Number(fields[19]) };
}

/** Whether a stat says the process has ended: a zombie not yet reaped, or dead on its way to being one. */
export function hasExited(stat: ProcStat | null): boolean {
  return stat === null || stat.state === 'Z' || stat.state === 'X';
}

/** Every pid in /proc (none without /proc). */
export function listPids(): number[] {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  return entries.filter((entry) => /^\d+$/.test(entry)).map(Number);
}

/** A process's environment as NUL-separated bytes (`/proc/<pid>/environ`); null when it is gone or unreadable. */
export function readEnviron(pid: number | string): Buffer | null {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`);
  } catch {
    return null;
  }
}

/** A process's arguments, NUL-separated as in /proc; '' when it is gone. */
export function readCommandLine(pid: number | string): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** A process found in /proc, named by pid and start time (so a pid reused since is not taken for it). */
interface ProcessRef {
  pid: number;
  startTime: number;
}

/**
 * Every live descendant of `pid`, from one scan of /proc: children of other sessions and groups included (a
 * sandbox's processes, which a group signal does not reach).
 *
 * @example descendantsOf(child.pid).length // 3: bwrap, its init, the server
 */
export function descendantsOf(pid: number): ProcessRef[] {
  const children = new Map<number, ProcessRef[]>();
  for (const candidate of listPids()) {
    const stat = readProcStat(candidate);
    if (!stat || hasExited(stat)) continue;
    const siblings = children.get(stat.ppid) ?? [];
    siblings.push({ pid: candidate, startTime: stat.startTime });
    children.set(stat.ppid, siblings);
  }
  const found: ProcessRef[] = [];
  const queue = [pid];
  for (let parent = queue.shift(); parent !== undefined; parent = queue.shift()) {
    for (const child of children.get(parent) ?? []) {
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/** Whether this process (pid and start time) has ended. */
export function isGone(ref: ProcessRef): boolean {
  const stat = readProcStat(ref.pid);
  return hasExited(stat) || stat?.startTime !== ref.startTime;
}
