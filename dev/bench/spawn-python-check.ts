import { spawn } from 'node:child_process';
import { buildCommandEnv } from 'rein/sandbox';
import type { PythonCheck } from 'rein/tools';

/** A compile of one file takes milliseconds; this only guards against a hung interpreter. */
const PYTHON_TIMEOUT_MS = 10_000;
/** Exit status our script uses for "the source has a syntax error". */
const SYNTAX_ERROR_EXIT = 3;

// compile() covers what ast.parse misses (e.g. `return` outside a function)
// and never runs the code. It reads bytes so PEP 263 coding cookies work.
const SCRIPT = `
import sys
src = sys.stdin.buffer.read()
try:
    compile(src, sys.argv[1], "exec", dont_inherit=True)
except SyntaxError as e:
    print(f"{e.lineno or 0}:{e.offset or 0}:{type(e).__name__}: {e.msg}")
    sys.exit(${SYNTAX_ERROR_EXIT})
except ValueError as e:
    print(f"0:0:{type(e).__name__}: {e}")
    sys.exit(${SYNTAX_ERROR_EXIT})
`;

/**
 * The syntax check as rein ran it before the warm checker, kept as the
 * benchmark's baseline and the tests' reference: one `python3` process per
 * check, the source on stdin, the verdict in the exit status and one line.
 *
 * @example await compilePythonSpawned('x = (1,\n', 'a.py') // { kind: 'invalid', line: 1, column: 5, message: "SyntaxError: '(' was never closed" }
 */
export async function compilePythonSpawned(source: string, displayName: string, python = 'python3'): Promise<PythonCheck> {
  const result = await runPython(source, displayName, python);
  if ('error' in result) return { kind: 'skipped', reason: result.error };
  if (result.code === 0) return { kind: 'valid' };
  const parsed = /^(\d+):(\d+):(.*)$/s.exec(result.stdout.trim());
  if (result.code !== SYNTAX_ERROR_EXIT || parsed === null) {
    return { kind: 'skipped', reason: `python3 could not check the file (exit ${result.code}): ${result.stderr.slice(0, 300)}` };
  }
  return { kind: 'invalid', line: Number(parsed[1]), column: Number(parsed[2]), message: parsed[3]!.trim() };
}

interface PythonRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runPython(source: string, displayName: string, python: string): Promise<PythonRun | { error: string }> {
  return new Promise((resolve) => {
    const child = spawn(python, ['-I', '-c', SCRIPT, displayName], {
      env: buildCommandEnv(process.env),
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: PYTHON_TIMEOUT_MS,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4000)));
    child.on('error', (error: NodeJS.ErrnoException) => {
      resolve({ error: error.code === 'ENOENT' ? 'python3 not found on PATH' : `python3 failed to start: ${error.message}` });
    });
    child.on('close', (code, signal) => {
      if (signal !== null) resolve({ error: `python3 syntax check stopped by ${signal} (timeout ${PYTHON_TIMEOUT_MS / 1000}s)` });
      else resolve({ code, stdout, stderr });
    });
    // A python3 that exits early closes stdin; the 'close' handler reports it.
    child.stdin.on('error', () => {});
    child.stdin.end(source);
  });
}
