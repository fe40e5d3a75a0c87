import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { buildCommandEnv } from '../sandbox/plan/environment.js';

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
export type PythonCheck = { kind: 'valid' } | { kind: 'invalid'; line: number; column: number; message: string } | { kind: 'skipped'; reason: string };

/** A python3 process that compiles source on request, started on the first check. */
export interface PythonChecker {
  check(source: string, displayName: string): Promise<PythonCheck>;
  /** Starts the interpreter now, without holding the event loop open, so the first check finds it running. */
  warm(): void;
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
  return new WarmPython(options);
}

class WarmPython implements PythonChecker {
  private child: ChildProcessWithoutNullStreams | null = null;
  private startedAt = 0;
  private readonly queue: Pending[] = [];
  private buffered = '';
  private stderr = '';

  constructor(private readonly options: PythonCheckerOptions) {}

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  check(source: string, displayName: string): Promise<PythonCheck> {
    return new Promise<PythonCheck>((resolve) => {
      const child = this.child ?? this.start();
      const timeoutMs = this.options.timeoutMs ?? PYTHON_TIMEOUT_MS;
      const starting = Math.max(0, this.startedAt + (this.options.startAllowanceMs ?? START_ALLOWANCE_MS) - Date.now());
      const timer = setTimeout(() => this.stop(`python3 syntax check timed out after ${timeoutMs / 1000}s`), timeoutMs + starting);
      this.queue.push({ resolve, timer });
      this.idle(false);
      const bytes = Buffer.from(source, 'utf8');
      child.stdin.write(`${JSON.stringify({ name: displayName, bytes: bytes.length })}\n`);
      child.stdin.write(bytes);
    });
  }

  warm(): void {
    if (this.child) return;
    this.start();
    this.idle(true);
  }

  close(): void {
    this.stop('the syntax checker was closed');
  }

  private start(): ChildProcessWithoutNullStreams {
    const child = spawn(this.options.python ?? 'python3', ['-I', '-c', SCRIPT], { env: buildCommandEnv(process.env), stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    this.startedAt = Date.now();
    this.stderr = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (child === this.child) this.receive(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString('utf8')).slice(-4000)));
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (child === this.child) this.stop(error.code === 'ENOENT' ? 'python3 not found on PATH' : `python3 failed to start: ${error.message}`);
    });
    // 'close', not 'exit': only then has all of stderr arrived to say why.
    child.on('close', (code, signal) => {
      if (child === this.child)
        this.stop(`python3 could not check the file (${signal ? `stopped by ${signal}` : `exit ${code}`}): ${this.stderr.slice(0, 300)}`);
    });
    // A python3 that exits early closes its stdin; the 'close' handler reports it.
    child.stdin.on('error', () => {});
    return child;
  }

  private receive(chunk: string): void {
    this.buffered += chunk;
    for (let end = this.buffered.indexOf('\n'); end !== -1; end = this.buffered.indexOf('\n')) {
      const line = this.buffered.slice(0, end);
      this.buffered = this.buffered.slice(end + 1);
      this.settle(toVerdict(line));
    }
  }

  private settle(verdict: PythonCheck): void {
    const pending = this.queue.shift();
    if (!pending) return;
    clearTimeout(pending.timer);
    pending.resolve(verdict);
    if (this.queue.length === 0) this.idle(true);
  }

  /** An idle checker does not keep Node's event loop alive: a harness that forgets close() still exits, and Python with it. */
  private idle(yes: boolean): void {
    const child = this.child;
    if (!child) return;
    for (const handle of [child, child.stdin, child.stdout, child.stderr] as Array<{ ref(): void; unref(): void }>) {
      if (yes) handle.unref();
      else handle.ref();
    }
  }

  private stop(reason: string): void {
    const ending = this.child;
    this.child = null;
    this.buffered = '';
    ending?.stdin.destroy();
    ending?.kill('SIGKILL');
    while (this.queue.length > 0) this.settle({ kind: 'skipped', reason });
  }
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

/** Files at a workspace's root that say it holds Python code. */
const PYTHON_MARKERS = new Set(['pyproject.toml', 'setup.py', 'setup.cfg', 'requirements.txt', 'tox.ini', 'Pipfile']);

/**
 * Whether a workspace holds Python (a `.py` file or a packaging file at its root): a run there starts its checker
 * at once, so the first Python edit does not wait for the interpreter (behind a pyenv shim, 100 ms and more).
 *
 * @example looksLikePython('/work/repo') // true when /work/repo/pyproject.toml exists
 */
export function looksLikePython(root: string): boolean {
  try {
    return readdirSync(root).some((name) => name.endsWith('.py') || PYTHON_MARKERS.has(name));
  } catch {
    return false;
  }
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
