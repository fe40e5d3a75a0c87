import { listPids, readEnviron } from './proc.js';

/**
 * Kills (SIGKILL) every process whose environment has `REIN_JOB=<prefix>…`:
 * what an unsandboxed supervisor started, when the supervisor itself is gone
 * and cannot clean up. Processes are stopped first and killed together, so
 * none forks while the rest are found. Returns how many were killed.
 *
 * @example killTagged('9f3a…-') // 2
 */
export function killTagged(prefix: string): number {
  const needle = Buffer.from(`REIN_JOB=${prefix}`);
  const victims = new Set<number>();
  for (let round = 0; round < 8; round++) {
    let found = 0;
    for (const pid of listPids()) {
      if (pid === process.pid || victims.has(pid)) continue;
      if (!hasTag(pid, needle)) continue;
      try {
        process.kill(pid, 'SIGSTOP');
        victims.add(pid);
        found += 1;
      } catch {
        // gone already
      }
    }
    if (found === 0) break;
  }
  for (const pid of victims) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  return victims.size;
}

function hasTag(pid: number, needle: Buffer): boolean {
  const environ = readEnviron(pid);
  if (environ === null) return false;
  for (let at = environ.indexOf(needle); at !== -1; at = environ.indexOf(needle, at + 1)) {
    if (at === 0 || environ[at - 1] === 0) return true;
  }
  return false;
}
