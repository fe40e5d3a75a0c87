import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { StubLog } from './trajectory-stub.js';

/** One whole process's figures, as the operating system and the stub saw them. */
export interface ProcessFigures {
  wallMs: number;
  /** The process's own user + system CPU (its children's not included). */
  cpuMs: number;
  peakRssMb: number;
  /** From spawn to the first chat request reaching the stub. */
  startupMs: number;
  stub: StubLog;
  exitCode: number | null;
}

/** A preload that writes the process's own CPU time and peak RSS to REIN_BENCH_USAGE_FILE as it exits. */
export const USAGE_REPORTER = `import { writeFileSync } from 'node:fs';
process.on('exit', () => {
  const usage = process.resourceUsage();
  writeFileSync(process.env.REIN_BENCH_USAGE_FILE, JSON.stringify({ cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000, maxRssKb: usage.maxRSS }));
});
`;

/**
 * Runs `node --import <reporter> ...args` to its end, the stub already playing its trajectory, and
 * returns what it cost. Throws when the process fails, with the end of its stderr.
 */
export function measureProcess(options: {
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  reporter: string;
  usageFile: string;
  stub: StubLog;
}): Promise<ProcessFigures> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', options.reporter, ...options.args], {
      cwd: options.cwd,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...options.env, REIN_BENCH_USAGE_FILE: options.usageFile },
    });
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
      const usage = JSON.parse(readFileSync(options.usageFile, 'utf8')) as { cpuMs: number; maxRssKb: number };
      resolve({
        wallMs,
        cpuMs: usage.cpuMs,
        peakRssMb: usage.maxRssKb / 1024,
        startupMs: (options.stub.firstRequestAt ?? Number.NaN) - started,
        stub: { ...options.stub },
        exitCode: code,
      });
    });
  });
}
