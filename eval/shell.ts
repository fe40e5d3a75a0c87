import { buildCommandEnv, buildSandboxArgv, planVisibility, resolveSandbox, runInProcessGroup } from 'rein/sandbox';

export interface ShellResult {
  exitCode: number | null;
  timedOut: boolean;
  output: string;
}

interface ShellOptions {
  cwd: string;
  timeoutS: number;
  /** Extra variables (REIN_TASK_DIR, REIN_WORKSPACE). */
  env: Record<string, string>;
  /** Run inside bubblewrap when available (the grader: it executes code the agent wrote). */
  sandbox: boolean;
  /** Folders the sandboxed command must be able to read (the task folder may live under /tmp). */
  readable: string[];
  /** The sandbox's network (off unless set: a contained setup_cmd installs what the task needs). */
  network?: boolean;
  /** No bubblewrap here is an error, not a run on the host. */
  requireSandbox?: boolean;
}

const OUTPUT_CAP = 4000;

/**
 * Runs a task's `setup_cmd` or `check_cmd` with `bash -c` in its own
 * process group, with the same filtered environment agent commands get and
 * a timeout; the whole group is killed when it ends.
 *
 * @example await runShell('npm test', { cwd, timeoutS: 120, env: {}, sandbox: true, readable: [] })
 */
export async function runShell(command: string, options: ShellOptions): Promise<ShellResult> {
  const inner = ['bash', '--norc', '-c', command];
  const network = options.network ?? false;
  const mode = options.sandbox ? resolveSandbox({ sandbox: options.requireSandbox ? 'bwrap' : 'auto', network }) : null;
  const argv =
    mode?.kind === 'bwrap'
      ? buildSandboxArgv(mode.bwrap, planVisibility({ root: options.cwd, policy: { network }, testCmd: command, extraReadable: options.readable }), inner)
      : inner;
  const result = await runInProcessGroup({
    argv,
    cwd: options.cwd,
    env: { ...buildCommandEnv(process.env, []), ...options.env },
    timeoutMs: options.timeoutS * 1000,
    signal: new AbortController().signal,
    outputCap: OUTPUT_CAP,
  });
  const output = result.output.finish();
  if (result.ending === 'failed') return { exitCode: null, timedOut: false, output: `could not start: ${result.failure ?? 'unknown error'}` };
  return { exitCode: result.exitCode, timedOut: result.ending === 'timeout', output };
}
