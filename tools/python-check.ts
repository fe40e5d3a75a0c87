import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { buildCommandEnv } from './environment.js';

/** A compile of one file takes milliseconds; this only guards against a hung interpreter. */
const PYTHON_TIMEOUT_MS = 10_000;
/** Extra time for the checks that wait for the interpreter to start (a pyenv shim on a busy machine takes seconds). */
const START_ALLOWANCE_MS = 20_000;

// One request is a JSON header line ({"name", "bytes"}) and that many bytes of source; one JSON line answers it.
// compile() covers what ast.parse misses (e.g. `return` outside a function) and never runs the code; it gets
// bytes, so PEP 263 coding cookies work. The loop ends on stdin EOF: however the harness ends, its end of the
// pipe closes and the checker exits. Ctrl+C reaches the whole process group; the harness decides, not Python.
const SCRIPT = `
import json, signal, sys, warnings
signal.signal(signal.SIGINT, signal.SIG_IGN)
warnings.simplefilter("ignore")
source, answers = sys.stdin.buffer, sys.stdout
while True:
    header = source.readline()
    if not header:
        break
    request = json.loads(header)
    code = source.read(request["bytes"])
    try:
        compile(code, request["name"], "exec", dont_inherit=True)
        answer = {"valid": True}
    except SyntaxError as e:
        answer = {"line": e.lineno or 0, "column": e.offset or 0, "message": f"{type(e).__name__}: {e.msg}"}
    except ValueError as e:
        answer = {"line": 0, "column": 0, "message": f"{type(e).__name__}: {e}"}
    except Exception as e:
        answer = {"error": f"{type(e).__name__}: {e}"}
    answers.write(json.dumps(answer) + "\\n")
    answers.flush()
`;

/** Python's verdict; line and column are 1-based, 0 when Python does not say. */
export type PythonCheck =
  | { kind: 'valid' }
  | { kind: 'invalid'; line: number; column: number; message: string }
  | { kind: 'skipped'; reason: string };

/** A python3 process that compiles source on request, started on the first check. */
export interface PythonChecker {
  check(source: string, displayName: string): Promise<PythonCheck>;
  /** Ends the process; a later check starts a new one. */
  close(): void;
  /** The running interpreter's pid, or null (tests). */
  readonly pid: number | null;
}

export interface PythonCheckerOptions {
  /** The interpreter to run; `python3` from PATH by default. */
  python?: string;
  timeoutMs?: number;
  /** Added to the timeout of checks sent while the interpreter starts. */
  startAllowanceMs?: number;
}

interface Pending {
  resolve(verdict: PythonCheck): void;
  timer: NodeJS.Timeout;
}

/**
 * Opens a warm Python syntax checker: one `python3 -I` process answers every
 * compile request of a run over stdin/stdout, so only the first check pays
 * the interpreter's start-up (hundreds of milliseconds behind a pyenv shim).
 * Verdicts and messages are the compiler's own. A missing python3, a crash
 * or a hang becomes a `skipped` verdict, never an exception; the next check
 * starts a fresh process. The process exits when its stdin closes, so it
 * never outlives the harness, even one killed with SIGKILL.
 *
 * @example const python = openPythonChecker(); await python.check('x = (1,\n', 'a.py'); python.close();
 */
export function openPythonChecker(options: PythonCheckerOptions = {}): PythonChecker {
  const timeoutMs = options.timeoutMs ?? PYTHON_TIMEOUT_MS;
  let child: ChildProcessWithoutNullStreams | null = null;
  let startedAt = 0;
  const queue: Pending[] = [];
  let buffered = '';
  let stderr = '';

  const settle = (verdict: PythonCheck) => {
    const pending = queue.shift();
    if (!pending) return;
    clearTimeout(pending.timer);
    pending.resolve(verdict);
    if (queue.length === 0) idle(true);
  };
  // An idle checker must not keep Node's event loop alive: a harness that forgets close() still exits, and Python with it.
  const idle = (yes: boolean) => {
    if (!child) return;
    for (const handle of [child, child.stdin, child.stdout, child.stderr] as Array<{ ref(): void; unref(): void }>) {
      if (yes) handle.unref();
      else handle.ref();
    }
  };
  const stop = (reason: string) => {
    const ending = child;
    child = null;
    buffered = '';
    ending?.stdin.destroy();
    ending?.kill('SIGKILL');
    while (queue.length > 0) settle({ kind: 'skipped', reason });
  };
  const start = (): ChildProcessWithoutNullStreams => {
    const started = spawn(options.python ?? 'python3', ['-I', '-c', SCRIPT], { env: buildCommandEnv(process.env), stdio: ['pipe', 'pipe', 'pipe'] });
    stderr = '';
    started.stdout.setEncoding('utf8');
    started.stdout.on('data', (chunk: string) => {
      if (started !== child) return;
      buffered += chunk;
      for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        settle(toVerdict(line));
      }
    });
    started.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4000)));
    started.on('error', (error: NodeJS.ErrnoException) => {
      if (started === child) stop(error.code === 'ENOENT' ? 'python3 not found on PATH' : `python3 failed to start: ${error.message}`);
    });
    started.on('exit', (code, signal) => {
      if (started === child) stop(`python3 could not check the file (${signal ? `stopped by ${signal}` : `exit ${code}`}): ${stderr.slice(0, 300)}`);
    });
    // A python3 that exits early closes its stdin; the 'exit' handler reports it.
    started.stdin.on('error', () => {});
    return started;
  };

  return {
    get pid() { return child?.pid ?? null; },
    check(source, displayName) {
      return new Promise<PythonCheck>((resolve) => {
        if (!child) { child = start(); startedAt = Date.now(); }
        const starting = Math.max(0, startedAt + (options.startAllowanceMs ?? START_ALLOWANCE_MS) - Date.now());
        const timer = setTimeout(() => stop(`python3 syntax check timed out after ${timeoutMs / 1000}s`), timeoutMs + starting);
        queue.push({ resolve, timer });
        idle(false);
        const bytes = Buffer.from(source, 'utf8');
        child.stdin.write(`${JSON.stringify({ name: displayName, bytes: bytes.length })}\n`);
        child.stdin.write(bytes);
      });
    },
    close() { stop('the syntax checker was closed'); },
  };
}

function toVerdict(line: string): PythonCheck {
  let answer: { valid?: boolean; line?: number; column?: number; message?: string; error?: string };
  try {
    answer = JSON.parse(line);
  } catch {
    return { kind: 'skipped', reason: `python3 could not check the file: unexpected answer ${line.slice(0, 200)}` };
  }
  if (answer.valid) return { kind: 'valid' };
  if (answer.error !== undefined) return { kind: 'skipped', reason: `python3 could not check the file: ${answer.error.slice(0, 300)}` };
  // Python gives offset -1 where it has no column (an unknown coding cookie): 0, "not said", as for a missing one.
  return { kind: 'invalid', line: Math.max(0, answer.line ?? 0), column: Math.max(0, answer.column ?? 0), message: (answer.message ?? '').trim() };
}

/**
 * Compiles Python source once, with a checker of its own (one process for
 * one check): for callers outside a run. A run keeps one warm checker.
 *
 * @example await compilePython('x = (1,\n', 'a.py') // { kind: 'invalid', line: 1, column: 5, message: "SyntaxError: '(' was never closed" }
 */
export async function compilePython(source: string, displayName: string): Promise<PythonCheck> {
  const python = openPythonChecker();
  try {
    return await python.check(source, displayName);
  } finally {
    python.close();
  }
}
