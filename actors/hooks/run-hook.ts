import { spawn } from 'node:child_process';
import { type HookFunction, type HookMoment, type HookSpec, hookLabel } from '../../rules/hooks/schema.js';
import { readHookAnswer } from './hook-answer.js';

/** How one hook command is started (actors/hooks/hook-launch.ts builds it): the full argv, its environment, and where it runs. */
export interface HookLaunch {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  where: 'sandbox' | 'host';
  /** Why a command ran on the host: its `where: host`, or a run without a sandbox. */
  hostBecause?: string;
}

/** What one hook did: its answer, exit status and time, or the problem (crash, timeout, bad output) that made it fail closed. */
export interface HookOutcome {
  moment: HookMoment;
  command: string;
  /** Where it ran: a command in the sandbox or on the host; a function in rein itself, so on the host. */
  where: 'sandbox' | 'host';
  /** Why it ran on the host (`where: host`, a run without a sandbox, a function of the rules module). */
  hostBecause?: string;
  exitCode: number | null;
  ms: number;
  decision?: 'allow' | 'deny' | 'ask';
  message?: string;
  note?: string;
  /** Before a call: the arguments the hook wants it run with instead (Claude Code's updatedInput), as the hook wrote them. */
  updatedInput?: Record<string, unknown>;
  problem?: string;
  stdout: string;
  stderr: string;
}

const MAX_OUTPUT = 64 * 1024;

/** Builds the launch of a hook command; a throw (a sandbox the machine cannot make) is the hook's problem. */
export type HookLauncher = (command: string, spec: HookSpec) => HookLaunch;

/**
 * Runs one hook: its command as `launch` says (in the run's sandbox or on the
 * host), the event as JSON on stdin, its own process group (killed whole on
 * timeout or abort, and after it ends: its watchdog too). Exit 0 with a JSON
 * object (or nothing) on stdout is an answer; exit 2 is a denial with stderr
 * as the reason; anything else, a timeout or output that is not the hook
 * JSON is a problem, which the caller treats by the fail-closed rule.
 *
 * @example const outcome = await runHook('preToolUse', spec, event, { launch: (command) => planHookLaunch(command, spec.where, context) });
 */
export function runHook(
  moment: HookMoment,
  spec: HookSpec,
  event: unknown,
  options: { launch: HookLauncher; signal?: AbortSignal; functions?: Readonly<Record<string, HookFunction>> },
): Promise<HookOutcome> {
  if (spec.function !== undefined) return runHookFunction(moment, spec, event, options.functions?.[spec.function]);
  const command = spec.command ?? 'true';
  const started = Date.now();
  let launch: HookLaunch;
  try {
    launch = options.launch(command, spec);
  } catch (error) {
    const problem = `could not start: ${error instanceof Error ? error.message : String(error)}`;
    return Promise.resolve({ moment, command, where: spec.where, exitCode: null, ms: Date.now() - started, stdout: '', stderr: '', problem });
  }
  const placed = { where: launch.where, ...(launch.hostBecause ? { hostBecause: launch.hostBecause } : {}) };
  return new Promise((resolve) => {
    const [file, ...args] = launch.argv;
    const child = spawn(file!, args, { cwd: launch.cwd, env: launch.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let problem: string | undefined;
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const kill = (why: string) => {
      problem ??= why;
      killGroup();
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
      // The watchdog waits in the group for the harness to die: the hook is over, so it goes now.
      killGroup();
      const base = { moment, command, ...placed, exitCode: code, ms: Date.now() - started, stdout: stdout.slice(0, 2000), stderr: stderr.slice(0, 2000) };
      // The answer is read whole (an updatedInput may be long); the trace keeps the head.
      resolve(problem ? { ...base, problem } : judge(base, code, stdout));
    });
  });
}

function judge(base: Omit<HookOutcome, 'problem'>, code: number | null, stdout = base.stdout): HookOutcome {
  if (code === 2) {
    // Exit 2 blocks whatever the JSON says; its reason is the JSON's, when it gives one for a denial, else stderr.
    const read = readJson(stdout);
    const reason = read && 'answer' in read && read.answer.decision === 'deny' ? read.answer.message : undefined;
    return { ...base, decision: 'deny', message: reason ?? (base.stderr.trim() || 'denied by a hook (exit 2)') };
  }
  if (code !== 0) return { ...base, problem: `exit ${code}${base.stderr.trim() ? `: ${base.stderr.trim().split('\n')[0]}` : ''}` };
  const read = readJson(stdout);
  if (read === null) return base;
  if ('problem' in read) return { ...base, problem: read.problem };
  return { ...base, ...read.answer };

  function readJson(output: string): ReturnType<typeof readHookAnswer> | null {
    const text = output.trim();
    if (!text) return null;
    try {
      return readHookAnswer(base.moment, JSON.parse(text));
    } catch {
      return { problem: 'stdout is not JSON (print nothing, or one object like {"decision":"deny","message":"…"})' };
    }
  }
}

/** A hook function of a rules module, held to the same timeout and answer shape as a command; a throw is a problem. */
async function runHookFunction(moment: HookMoment, spec: HookSpec, event: unknown, fn: HookFunction | undefined): Promise<HookOutcome> {
  const started = Date.now();
  const base = {
    moment,
    command: hookLabel(spec),
    where: 'host' as const,
    hostBecause: 'a function of the rules module',
    exitCode: null,
    stdout: '',
    stderr: '',
  };
  if (!fn) return { ...base, ms: 0, problem: `no hook function "${spec.function}" is exported in hookFunctions` };
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${spec.timeoutSeconds} s`)), spec.timeoutSeconds * 1000);
    });
    const answer = await Promise.race([Promise.resolve(fn(event as Record<string, unknown>)), timeout]);
    const stdout = answer === undefined || answer === null ? '' : JSON.stringify(answer);
    return judge({ ...base, exitCode: 0, stdout, ms: Date.now() - started }, 0);
  } catch (error) {
    return { ...base, ms: Date.now() - started, problem: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}
