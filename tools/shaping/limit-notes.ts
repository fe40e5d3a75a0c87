import type { GroupRunResult } from '../sandbox/lifetime/process-group.js';
import { formatSize, type SandboxLimits } from '../sandbox/limits/sandbox-limits.js';

/** What programs print when an allocation fails: Python, the C library's strerror, V8, C++, Go, Rust, the JVM. */
const OUT_OF_MEMORY = /MemoryError|Cannot allocate memory|out of memory|bad_alloc|memory allocation of \d+ bytes failed|OutOfMemoryError/i;
/** What a shell or a runtime prints when a fork fails. */
const FORK_REFUSED = /fork: (retry: )?Resource temporarily unavailable|Cannot fork|fork failed|EAGAIN.*spawn|spawn.*EAGAIN/i;

/**
 * A line telling the model that a command ran into one of the sandbox's limits, or null: the process limit when the
 * kernel said so (a cgroup counts refused forks) or the output shows a refused fork, the memory limit when a failed
 * command's output shows an allocation that failed. Without it a model reads "MemoryError" as a bug to fix in the code.
 *
 * @example limitNote(result, text, { memoryBytes: 512 * 2 ** 20, processes: 64 }) // '[rein: … at most 512 MiB …]'
 */
export function limitNote(result: GroupRunResult, text: string, limits: SandboxLimits): string | null {
  const notes: string[] = [];
  if (result.processLimitReached || FORK_REFUSED.test(text))
    notes.push(
      `the sandbox reached its limit of ${limits.processes} processes and threads at once (permissions.limits.processes) while this command ran, so forks failed`,
    );
  if (result.exitCode !== 0 && OUT_OF_MEMORY.test(text))
    notes.push(`each process in the sandbox may allocate at most ${formatSize(limits.memoryBytes)} (permissions.limits.memoryMiB)`);
  return notes.length === 0 ? null : `[rein: ${notes.join('; ')}]`;
}
