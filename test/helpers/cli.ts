import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const repoRoot = join(import.meta.dirname, '..', '..');
/** The `rein` command's launcher (rein-cli's bin). */
export const reinBin = join(repoRoot, 'cli', 'bin', 'rein.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built `rein` CLI as a child process (the tests run after `npm run build`). */
export function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; input?: string } = {}): Promise<CliResult> {
  if (!existsSync(join(repoRoot, 'cli/dist/main.js'))) throw new Error('dist/ is missing: run `npm run build` (npm test does it) before the CLI tests');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [reinBin, ...args], { cwd: options.cwd ?? repoRoot, env: options.env ?? process.env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    // What the command reads on standard input (nothing, unless given).
    child.stdin.end(options.input ?? '');
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The environment without any model endpoint settings, plus `extra`. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'REIN_MODEL']) delete env[name];
  return { ...env, ...extra };
}
