import os from 'node:os';
import type { LimitRules } from '../../../rules/command-policy.js';

/** What one run's sandbox may use at most, besides its 1 GiB private folders (tools/sandbox/launch/bubblewrap.ts). */
export interface SandboxLimits {
  /** Memory each process may allocate (heap and private writable mappings: RLIMIT_DATA), in bytes. */
  memoryBytes: number;
  /** Processes and threads the sandbox may hold at once. */
  processes: number;
}

const MIB = 1024 * 1024;
/** Enough for a parallel build and a test runner's workers, far below a machine's pid space (32768 by default). */
const DEFAULT_PROCESSES = 1024;
/** The most a single process gets by default, however large the machine. */
const DEFAULT_MEMORY_CEILING = 8 * 1024 * MIB;

/**
 * The limits in effect: the rules' own, else half the machine's memory (at most 8 GiB) a process and 1024
 * processes and threads.
 *
 * @example sandboxLimits({ processes: 256 }) // { memoryBytes: 8589934592, processes: 256 } on a 24 GB machine
 */
export function sandboxLimits(rules: LimitRules = {}, totalMemory = os.totalmem()): SandboxLimits {
  return {
    memoryBytes: rules.memoryMiB !== undefined ? rules.memoryMiB * MIB : Math.min(DEFAULT_MEMORY_CEILING, Math.floor(totalMemory / 2 / MIB) * MIB),
    processes: rules.processes ?? DEFAULT_PROCESSES,
  };
}

/** `8 GiB`, `512 MiB`: a size as the notes and the start line say it. */
export function formatSize(bytes: number): string {
  const mib = bytes / MIB;
  return mib >= 1024 && mib % 1024 === 0 ? `${mib / 1024} GiB` : `${Math.round(mib)} MiB`;
}

/**
 * `argv` run under the memory limit and, in a sandbox (`sandboxed`), the process limit as an rlimit: for what runs
 * outside the run's supervisor (a command run on its own, a stdio MCP server), which sets them itself for the rest.
 *
 * @example limitedArgv(sandboxLimits(), ['node', 'server.js'], true) // ['bash', '-c', 'ulimit -d … && ulimit -u … && exec "$@"', 'bash', 'node', 'server.js']
 */
export function limitedArgv(limits: SandboxLimits, argv: readonly string[], sandboxed: boolean): string[] {
  const set = [`ulimit -d ${Math.floor(limits.memoryBytes / 1024)}`, ...(sandboxed ? [`ulimit -u ${limits.processes}`] : [])];
  return ['bash', '--norc', '-c', `${set.join(' && ')} && exec "$@"`, 'bash', ...argv];
}
