import { spawn } from 'node:child_process';
import { z } from 'zod';
import type { HookMoment, HookSpec } from './schema.js';

/** What a hook may print on stdout (one JSON object, or nothing). */
const hookAnswer = z.looseObject({
  decision: z.enum(['allow', 'deny', 'ask']).optional(),
  message: z.string().optional(),
  note: z.string().optional(),
});

/** What one hook did: its answer, exit status and time, or the problem (crash, timeout, bad output) that made it fail closed. */
export interface HookOutcome {
  moment: HookMoment;
  command: string;
  exitCode: number | null;
  ms: number;
  decision?: 'allow' | 'deny' | 'ask';
  message?: string;
  note?: string;
  problem?: string;
  stdout: string;
  stderr: string;
}

const MAX_OUTPUT = 64 * 1024;

/**
 * Runs one hook: `sh -c command` in `cwd`, the event as JSON on stdin, its
 * own process group (killed whole on timeout or abort). Exit 0 with a JSON
 * object (or nothing) on stdout is an answer; exit 2 is a denial with stderr
 * as the reason; anything else, a timeout or output that is not the hook
 * JSON is a problem, which the caller treats by the fail-closed rule.
 *
 * @example const outcome = await runHook('preToolUse', { command: './policy.sh', tools: '*', timeoutSeconds: 5 }, event, { cwd, env });
 */
export function runHook(
  moment: HookMoment,
  spec: HookSpec,
  event: unknown,
  options: { cwd: string; env: NodeJS.ProcessEnv; signal?: AbortSignal },
): Promise<HookOutcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', spec.command], { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let problem: string | undefined;
    const kill = (why: string) => {
      problem ??= why;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => kill(`timed out after ${spec.timeoutSeconds} s`), spec.timeoutSeconds * 1000);
    const onAbort = () => kill('stopped with the run');
    options.signal?.addEventListener('abort', onAbort);
    child.stdout.on('data', (chunk: Buffer) => {
      if (stdout.length < MAX_OUTPUT) stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < MAX_OUTPUT) stderr += chunk.toString('utf8');
    });
    // A hook that does not read its stdin is fine: the broken pipe is not its failure.
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify(event));
    child.on('error', (error) => kill(`could not start: ${error.message}`));
    child.on('close', (code) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      const base = { moment, command: spec.command, exitCode: code, ms: Date.now() - started, stdout: stdout.slice(0, 2000), stderr: stderr.slice(0, 2000) };
      resolve(problem ? { ...base, problem } : judge(base, code));
    });
  });
}

function judge(base: Omit<HookOutcome, 'problem'>, code: number | null): HookOutcome {
  if (code === 2) return { ...base, decision: 'deny', message: base.stderr.trim() || 'denied by a hook (exit 2)' };
  if (code !== 0) return { ...base, problem: `exit ${code}${base.stderr.trim() ? `: ${base.stderr.trim().split('\n')[0]}` : ''}` };
  const text = base.stdout.trim();
  if (!text) return base;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ...base, problem: 'stdout is not JSON (print nothing, or one object like {"decision":"deny","message":"…"})' };
  }
  const parsed = hookAnswer.safeParse(raw);
  if (!parsed.success)
    return { ...base, problem: `stdout is not a hook answer (${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message})` };
  const { decision, message, note } = parsed.data;
  return { ...base, ...(decision ? { decision } : {}), ...(message ? { message } : {}), ...(note ? { note } : {}) };
}
