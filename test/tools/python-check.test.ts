import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { compilePythonSpawned } from '../../dev/bench/spawn-python-check.js';
import { looksLikePython, openPythonChecker, type PythonChecker } from '../../tools/edits/python-check.js';
import { createSyntaxChecker } from '../../tools/edits/syntax-check.js';
import { waitUntil } from '../helpers/wait.js';
import { makeTempDir } from '../helpers/workspace.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const opened: PythonChecker[] = [];
const open = (...args: Parameters<typeof openPythonChecker>) => {
  const checker = openPythonChecker(...args);
  opened.push(checker);
  return checker;
};
afterEach(() => {
  for (const checker of opened.splice(0)) checker.close();
});

const alive = (pid: number) => {
  try {
    // A zombie has exited; only its process-table entry is left.
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

/** Sources covering every way compile() answers: valid, syntax errors from the parser, the compiler and the symbol table, encodings, null bytes. */
const CORPUS: Array<[string, string]> = [
  ['valid.py', 'def mean(xs):\n    return sum(xs) / len(xs)\n'],
  ['match.py', 'match x:\n    case [1, *rest]:\n        pass\n'],
  ['indent.py', 'def f():\nreturn 1\n'],
  ['unindent.py', 'if x:\n        a = 1\n    b = 2\n'],
  ['tabs.py', 'if x:\n\ta = 1\n        b = 2\n'],
  ['paren.py', 'x = (1,\n'],
  ['return.py', 'return 5\n'],
  ['await.py', 'await go()\n'],
  ['nonlocal.py', 'nonlocal x\n'],
  ['fstring.py', 'x = f"{a!z}"\n'],
  ['identifier.py', 'x€ = 1\n'],
  ['nul.py', 'x = 1\0\n'],
  ['latin1.py', '# -*- coding: latin-1 -*-\nname = "café"\n'],
  ['bom.py', '\uFEFFx = 1\n'],
  ['escape.py', 'x = "\\d"\n'],
  ['nested.py', `x = ${'('.repeat(250)}1${')'.repeat(250)}\n`],
  ['deep.py', `x = ${'['.repeat(5000)}${']'.repeat(5000)}\n`],
  ['lambda.py', 'f = lambda: (yield)\nclass A:\n    def g(self):\n        return\n'],
  ['assign.py', 'f() = 1\n'],
  ['crlf.py', 'def f():\r\n    return 1\r\n  x\r\n'],
  ['empty.py', ''],
];

describe('warm Python syntax checker', () => {
  it('answers exactly as one python3 process per check did, for every kind of verdict', { timeout: 120_000 }, async () => {
    const python = open();
    // The reference starts the interpreter itself, not python3 from PATH: behind a pyenv shim each start takes seconds on a loaded machine.
    const interpreter = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
    for (const [name, source] of CORPUS) {
      const reference = await compilePythonSpawned(source, name, interpreter);
      expect(reference.kind, name).not.toBe('skipped');
      expect(await python.check(source, name), name).toEqual(reference);
    }
    expect(await python.check('x = (1,\n', 'a.py')).toEqual({ kind: 'invalid', line: 1, column: 5, message: "SyntaxError: '(' was never closed" });
    // The one difference, a fix: compile() rejects an unknown coding cookie with offset -1, which the old
    // one-line protocol could not parse, so the edit went through unchecked. It is the compiler's error now.
    const cookie = '# coding: klingon\nx = 1\n';
    expect(await compilePythonSpawned(cookie, 'c.py', interpreter)).toMatchObject({ kind: 'skipped' });
    expect(await python.check(cookie, 'c.py')).toEqual({ kind: 'invalid', line: 0, column: 0, message: 'SyntaxError: unknown encoding: klingon' });
  });

  it('starts python3 once for a run of checks, and a fresh one after the process dies', async () => {
    const python = open();
    expect(python.pid).toBeNull();
    await python.check('x = 1\n', 'a.py');
    const first = python.pid!;
    for (let index = 0; index < 20; index++) expect((await python.check(`x = ${index}\n`, 'a.py')).kind).toBe('valid');
    expect(python.pid).toBe(first);
    process.kill(first, 'SIGKILL');
    await waitUntil(() => python.pid === null, 'the checker noticing its python3 died');
    expect(await python.check('y = (\n', 'b.py')).toMatchObject({ kind: 'invalid', line: 1 });
    expect(python.pid).not.toBe(first);
  });

  it('checks sent together are answered in order, each with its own verdict', async () => {
    const python = open();
    const sources = Array.from({ length: 30 }, (_, index) => (index % 3 === 0 ? `def f${index}(:\n` : `x${index} = ${index}\n`));
    const verdicts = await Promise.all(sources.map((source, index) => python.check(source, `m${index}.py`)));
    verdicts.forEach((verdict, index) => {
      expect(verdict.kind, sources[index]).toBe(index % 3 === 0 ? 'invalid' : 'valid');
    });
  });

  it('a missing interpreter, a crash and a hang are skipped verdicts, not exceptions', async () => {
    expect(await open({ python: '/nonexistent/python3' }).check('x = 1\n', 'a.py')).toEqual({ kind: 'skipped', reason: 'python3 not found on PATH' });
    const dir = makeTempDir();
    const crashing = path.join(dir, 'crashing-python');
    fs.writeFileSync(crashing, '#!/bin/sh\necho "bad interpreter" >&2\nexit 7\n', { mode: 0o755 });
    expect(await open({ python: crashing }).check('x = 1\n', 'a.py')).toEqual({
      kind: 'skipped',
      reason: 'python3 could not check the file (exit 7): bad interpreter\n',
    });
    const hanging = path.join(dir, 'hanging-python');
    fs.writeFileSync(hanging, '#!/bin/sh\nexec sleep 30\n', { mode: 0o755 });
    const slow = open({ python: hanging, timeoutMs: 300, startAllowanceMs: 0 });
    const verdict = await slow.check('x = 1\n', 'a.py');
    expect(verdict).toEqual({ kind: 'skipped', reason: 'python3 syntax check timed out after 0.3s' });
  });

  it('close() ends the process, and an idle checker does not keep Node running', async () => {
    const python = open();
    await python.check('x = 1\n', 'a.py');
    const pid = python.pid!;
    python.close();
    await waitUntil(() => !alive(pid), 'python3 exiting after close()');
    // A script that never closes its checker still exits once the check is answered.
    const script = `import { openPythonChecker } from ${JSON.stringify(path.join(repoRoot, 'dist/tools/edits/python-check.js'))};
      const python = openPythonChecker(); console.log(JSON.stringify(await python.check('x = (', 'a.py')));`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ kind: 'invalid', line: 1 });
  });

  it('warm() starts python3 before the first check, which it then answers, and the started checker does not keep Node running', async () => {
    const python = open();
    expect(python.pid).toBeNull();
    python.warm();
    const pid = python.pid!;
    expect(alive(pid)).toBe(true);
    expect(await python.check('x = (', 'a.py')).toMatchObject({ kind: 'invalid', line: 1 });
    expect(python.pid).toBe(pid);
    const script = `import { openPythonChecker } from ${JSON.stringify(path.join(repoRoot, 'dist/tools/edits/python-check.js'))};
      openPythonChecker().warm(); console.log('warmed');`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
  });

  it('looksLikePython: a .py file or a packaging file at the root says Python; other workspaces start no interpreter', () => {
    const dir = makeTempDir();
    expect(looksLikePython(dir)).toBe(false);
    fs.writeFileSync(path.join(dir, 'index.js'), '');
    expect(looksLikePython(dir)).toBe(false);
    fs.writeFileSync(path.join(dir, 'pyproject.toml'), '');
    expect(looksLikePython(dir)).toBe(true);
    const other = makeTempDir();
    fs.writeFileSync(path.join(other, 'stats.py'), '');
    expect(looksLikePython(other)).toBe(true);
    expect(looksLikePython(path.join(other, 'missing'))).toBe(false);
  });

  it('never outlives the harness: python3 exits when the harness is killed with SIGKILL, even with other children still running', async () => {
    if (!fs.existsSync(path.join(repoRoot, 'dist/tools/edits/python-check.js'))) throw new Error('dist/ is missing: run `npm run build` first');
    // The harness stand-in checks once, starts a long-lived command (as a run's tools do), prints both pids and waits.
    const script = `import { openPythonChecker } from ${JSON.stringify(path.join(repoRoot, 'dist/tools/edits/python-check.js'))};
      import { execFileSync, spawn } from 'node:child_process';
      const python = openPythonChecker(); await python.check('x = 1', 'a.py');
      const other = spawn('sleep', ['30'], { stdio: 'ignore', detached: true });
      console.log(JSON.stringify({ python: python.pid, other: other.pid })); setInterval(() => {}, 1000);`;
    const harness = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    harness.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await waitUntil(() => out.includes('\n'), 'the harness stand-in reporting its python3');
    const pids = JSON.parse(out) as { python: number; other: number };
    try {
      expect(alive(pids.python)).toBe(true);
      harness.kill('SIGKILL');
      await waitUntil(() => !alive(pids.python), 'python3 exiting after the harness was killed');
      expect(alive(pids.other)).toBe(true);
    } finally {
      process.kill(pids.other, 'SIGKILL');
    }
  });
});

describe('createSyntaxChecker', () => {
  it('checks Python through one warm process and the other languages in process, with the same messages as checkSyntax', async () => {
    const syntax = createSyntaxChecker();
    try {
      expect(await syntax.check('stats.py', 'def mean(xs):\nreturn 1\n')).toEqual({
        kind: 'invalid',
        message: 'stats.py:2:1: IndentationError: expected an indented block after function definition on line 1\nreturn 1\n^',
      });
      expect(await syntax.check('a.json', '{"a": 1,}')).toMatchObject({ kind: 'invalid' });
      expect(await syntax.check('a.ts', 'let n: number = 1;\n')).toEqual({ kind: 'valid' });
      expect(await syntax.check('notes.md', '# x')).toEqual({ kind: 'none' });
    } finally {
      syntax.close();
    }
  });
});
