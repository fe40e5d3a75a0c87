import { createSyntaxChecker } from 'rein/tools';
import { describePython, type PythonOnPath } from './python-on-path.js';
import { compilePythonSpawned } from './spawn-python-check.js';

/** One way of checking syntax, timed over a series of checks of the same edit. */
interface SyntaxCheckFigures {
  checker: string;
  checks: number;
  /** The first check, start-up included. */
  firstMs: number;
  /** Median of the checks after the first. */
  medianMs: number;
}

interface SyntaxCheckBench {
  /** `python3` as found on PATH, and whether it is a script (a pyenv shim) rather than the interpreter. */
  python: PythonOnPath;
  rows: SyntaxCheckFigures[];
}

/** A Python module of about 300 lines, the size of file an agent edits. */
function pythonModule(): string {
  return Array.from(
    { length: 60 },
    (_, index) =>
      `def stat_${index}(xs, weight=${index}):\n    total = sum(x * weight for x in xs)\n    if not xs:\n        raise ValueError("empty")\n    return total / len(xs)\n`,
  ).join('\n');
}

function typeScriptModule(): string {
  return Array.from(
    { length: 60 },
    (_, index) =>
      `export function stat${index}(xs: number[], weight = ${index}): number {\n  const total = xs.reduce((sum, x) => sum + x * weight, 0);\n  if (xs.length === 0) throw new Error('empty');\n  return total / xs.length;\n}\n`,
  ).join('\n');
}

async function timeChecks(checker: string, checks: number, check: (index: number) => Promise<unknown>): Promise<SyntaxCheckFigures> {
  const times: number[] = [];
  for (let index = 0; index < checks; index++) {
    const started = process.hrtime.bigint();
    await check(index);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  const rest = times.slice(1).sort((a, b) => a - b);
  return { checker, checks, firstMs: times[0]!, medianMs: rest[Math.floor(rest.length / 2)]! };
}

/**
 * The syntax check of an edit to a ~300-line file, per check: Python with
 * one process per check (rein before the warm checker) through `python3` on
 * PATH and through the interpreter itself, Python through the run's warm
 * checker, and TypeScript and JSON in process. Each check alternates a valid
 * and a broken version of the file, as an agent's edits do.
 */
export async function measureSyntaxChecks(options: { spawnChecks?: number; warmChecks?: number } = {}): Promise<SyntaxCheckBench> {
  const { spawnChecks = 4, warmChecks = 200 } = options;
  const python = describePython();
  if (!python) throw new Error('bench: no python3 on PATH for the syntax-check section');
  const valid = pythonModule();
  const broken = valid.replace('    return total / len(xs)\n', '    return (total / len(xs)\n');
  const source = (index: number) => (index % 2 === 0 ? valid : broken);
  const rows: SyntaxCheckFigures[] = [];
  rows.push(
    await timeChecks(`python, a process per check (before): python3 on PATH${python.shim ? ', a shim' : ''}`, spawnChecks, (index) =>
      compilePythonSpawned(source(index), 'stats.py'),
    ),
  );
  if (python.shim)
    rows.push(
      await timeChecks('python, a process per check (before): the interpreter itself', spawnChecks, (index) =>
        compilePythonSpawned(source(index), 'stats.py', python.interpreter),
      ),
    );
  const syntax = createSyntaxChecker();
  try {
    rows.push(
      await timeChecks(`python, one warm process for the run (now): python3 on PATH${python.shim ? ', a shim' : ''}`, warmChecks, (index) =>
        syntax.check('stats.py', source(index)),
      ),
    );
    const ts = typeScriptModule();
    const tsBroken = ts.replace('return total / xs.length;', 'return (total / xs.length;');
    rows.push(await timeChecks('typescript, in process', warmChecks, (index) => syntax.check('stats.ts', index % 2 === 0 ? ts : tsBroken)));
    const json = JSON.stringify({ scripts: Object.fromEntries(Array.from({ length: 300 }, (_, index) => [`task${index}`, `run ${index}`])) }, null, 2);
    rows.push(await timeChecks('json, in process', warmChecks, (index) => syntax.check('package.json', index % 2 === 0 ? json : `${json},`)));
  } finally {
    syntax.close();
  }
  return { python, rows };
}
