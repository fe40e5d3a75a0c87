import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { StubLog } from './trajectory-stub.js';

/** One whole process's figures, as the operating system and the stub saw them. */
export interface ProcessFigures {
  wallMs: number;
  /** The process's own user + system CPU (its children's not included). */
  cpuMs: number;
  peakRssMb: number;
  /** From spawn to the first chat request reaching the stub. */
  startupMs: number;
  /** The process's own CPU (all its threads) when the first chat request reached the stub; NaN off Linux. */
  startupCpuMs: number;
  /** Of `cpuMs`, what threads other than the main one spent (V8's workers, libuv's pool) by the exit; NaN off Linux. */
  otherThreadsCpuMs: number;
  stub: StubLog;
  exitCode: number | null;
}

/**
 * A preload (NODE_OPTIONS=--import=…) that writes the process's own CPU time and peak RSS to REIN_BENCH_USAGE_FILE
 * as it exits. It takes both out of the environment first, so a Node process the run starts does not report too.
 */
export const USAGE_REPORTER = `import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
const file = process.env.REIN_BENCH_USAGE_FILE;
delete process.env.REIN_BENCH_USAGE_FILE;
delete process.env.NODE_OPTIONS;
// Threads other than the main one, from /proc (clock ticks of 10 ms); threads that already ended are not listed there.
const otherThreadsCpuMs = () => {
  try {
    let ticks = 0;
    for (const tid of readdirSync('/proc/self/task')) {
      if (Number(tid) === process.pid) continue;
      const fields = readFileSync('/proc/self/task/' + tid + '/stat', 'utf8').split(') ')[1].split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    }
    return ticks * 10;
  } catch {
    return null;
  }
};
process.on('exit', () => {
  const usage = process.resourceUsage();
  writeFileSync(file, JSON.stringify({ cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000, maxRssKb: usage.maxRSS, otherThreadsCpuMs: otherThreadsCpuMs() }));
});
`;

/**
 * Runs `command ...args` (node when no command is given) with the reporter preloaded through NODE_OPTIONS, to its end, the stub already playing its trajectory, and
 * returns what it cost. Throws when the process fails, with the end of its stderr.
 */
export function measureProcess(options: {
  /** An executable that starts node itself (rein's launcher); node when absent. */
  command?: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  reporter: string;
  usageFile: string;
  stub: StubLog;
}): Promise<ProcessFigures> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const nodeOptions = [options.env.NODE_OPTIONS, `--import=${pathToFileURL(options.reporter).href}`].filter(Boolean).join(' ');
    const child = spawn(options.command ?? process.execPath, options.args, {
      cwd: options.cwd,
      stdio: ['ignore', 'ignore', 'pipe'],
      // The launcher execs the `node` on PATH: this one's, so every row runs the same Node.
      env: {
        ...options.env,
        NODE_OPTIONS: nodeOptions,
        PATH: `${dirname(process.execPath)}${delimiter}${options.env.PATH ?? ''}`,
        REIN_BENCH_USAGE_FILE: options.usageFile,
      },
    });
    let startupCpuMs = Number.NaN;
    options.stub.onFirstRequest = () => {
      startupCpuMs = processCpuMs(child.pid);
    };
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      if (!existsSync(options.usageFile)) {
        reject(new Error(`${options.args.join(' ')} left no usage (exit ${code}): ${stderr}`));
        return;
      }
      const usage = JSON.parse(readFileSync(options.usageFile, 'utf8')) as { cpuMs: number; maxRssKb: number; otherThreadsCpuMs: number | null };
      resolve({
        wallMs,
        cpuMs: usage.cpuMs,
        peakRssMb: usage.maxRssKb / 1024,
        startupMs: (options.stub.firstRequestAt ?? Number.NaN) - started,
        startupCpuMs,
        otherThreadsCpuMs: usage.otherThreadsCpuMs ?? Number.NaN,
        stub: { ...options.stub },
        exitCode: code,
      });
    });
  });
}

/** A live process's user + system CPU so far from /proc (clock ticks of 10 ms), NaN where there is no /proc. */
function processCpuMs(pid: number | undefined): number {
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}
