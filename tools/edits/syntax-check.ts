import path from 'node:path';
import type { ParserOptions, ParserPlugin } from '@babel/parser';
import { locateJsonError } from '../shaping/json-error.js';
import { compilePython, openPythonChecker, type PythonCheck, type PythonCheckerOptions } from './python-check.js';

/**
 * The outcome of checking one candidate file. `none` means no checker exists
 * for the extension; `skipped` means one exists but could not run (say so).
 */
type SyntaxVerdict = { kind: 'valid' } | { kind: 'invalid'; message: string } | { kind: 'none' } | { kind: 'skipped'; reason: string };

type Checker = (source: string, name: string, python: PythonCompile) => SyntaxVerdict | Promise<SyntaxVerdict>;
type PythonCompile = (source: string, name: string) => Promise<PythonCheck>;

/** Extension → in-process checker (Python goes to python3, see python-check.ts). */
const CHECKERS: Record<string, Checker> = {
  '.js': (source, name) => checkWithBabel(source, name, { sourceType: 'unambiguous', plugins: ['jsx'] }),
  '.jsx': (source, name) => checkWithBabel(source, name, { sourceType: 'unambiguous', plugins: ['jsx'] }),
  '.mjs': (source, name) => checkWithBabel(source, name, { sourceType: 'module' }),
  '.cjs': (source, name) => checkWithBabel(source, name, { sourceType: 'script' }),
  '.ts': (source, name) => checkWithBabel(source, name, typeScriptOptions(name, false)),
  '.mts': (source, name) => checkWithBabel(source, name, typeScriptOptions(name, false)),
  '.cts': (source, name) => checkWithBabel(source, name, typeScriptOptions(name, false)),
  '.tsx': (source, name) => checkWithBabel(source, name, typeScriptOptions(name, true)),
  '.json': checkJson,
  '.yaml': checkYaml,
  '.yml': checkYaml,
  '.py': checkPython,
};

/**
 * Checks a candidate file's syntax by its extension, in process where a
 * parser is available (JS, TS, JSX, JSON, YAML) and with `python3` for Python
 * (a process of its own for this one check; a run uses `createSyntaxChecker`).
 * Error messages read `name:line:col: kind: message` plus the offending line.
 *
 * @example await checkSyntax('src/app.ts', 'const x: = 1;') // { kind: 'invalid', message: 'src/app.ts:1:10: SyntaxError: Unexpected token\n...' }
 */
export async function checkSyntax(name: string, source: string, python: PythonCompile = compilePython): Promise<SyntaxVerdict> {
  const checker = CHECKERS[path.extname(name).toLowerCase()];
  return checker === undefined ? { kind: 'none' } : checker(source, name, python);
}

/** Syntax checks for one run: Python through one warm python3, closed with the run. */
export interface SyntaxChecker {
  check(name: string, source: string): Promise<SyntaxVerdict>;
  close(): void;
}

/**
 * A syntax checker that stays warm for a run: the first Python check starts
 * one python3 process and every later one reuses it (no start-up per edit);
 * the other languages are checked in process as by `checkSyntax`. With
 * `startPython` the process starts at once, before the first check. Close it
 * when the run ends; the process also exits on its own if the harness dies.
 *
 * @example const syntax = createSyntaxChecker(); await syntax.check('a.py', 'x = 1\n'); syntax.close();
 */
export function createSyntaxChecker(options: PythonCheckerOptions & { startPython?: boolean } = {}): SyntaxChecker {
  const python = openPythonChecker(options);
  if (options.startPython) python.warm();
  return {
    check: (name, source) => checkSyntax(name, source, (code, displayName) => python.check(code, displayName)),
    close: () => python.close(),
  };
}

function typeScriptOptions(name: string, jsx: boolean): ParserOptions {
  const declaration = /\.d\.[mc]?tsx?$/i.test(name);
  const typescript: ParserPlugin = declaration ? ['typescript', { dts: true }] : 'typescript';
  const plugins: ParserPlugin[] = [typescript, 'decorators-legacy'];
  return { sourceType: 'unambiguous', plugins: jsx ? [...plugins, 'jsx'] : plugins };
}

// Parsers load on first use: most runs never edit a YAML file, and start-up time is every command's cost.
const loadBabel = () => import('@babel/parser');
const loadYaml = () => import('yaml');

async function checkWithBabel(source: string, name: string, options: ParserOptions): Promise<SyntaxVerdict> {
  const { parse: babelParse } = await loadBabel();
  try {
    // Top-level return/await are legal in CommonJS wrappers and ES modules respectively.
    babelParse(source, { ...options, allowReturnOutsideFunction: true, allowAwaitOutsideFunction: true });
    return { kind: 'valid' };
  } catch (error) {
    const { loc, message } = error as { loc?: { line: number; column: number }; message: string };
    const text = message.replace(/\s*\(\d+:\d+\)$/, '');
    return invalid(source, name, loc?.line ?? 0, (loc?.column ?? -1) + 1, `SyntaxError: ${text}`);
  }
}

function checkJson(source: string, name: string): SyntaxVerdict {
  const text = source.startsWith('\uFEFF') ? source.slice(1) : source;
  try {
    JSON.parse(text);
    return { kind: 'valid' };
  } catch (error) {
    const at = locateJsonError(text);
    return invalid(text, name, at?.line ?? 0, at?.column ?? 0, `SyntaxError: ${(error as Error).message}`);
  }
}

async function checkYaml(source: string, name: string): Promise<SyntaxVerdict> {
  const { default: YAML } = await loadYaml();
  // Duplicate keys are accepted, as PyYAML and most loaders do.
  const documents = YAML.parseAllDocuments(source, { uniqueKeys: false, prettyErrors: true });
  const error = (Array.isArray(documents) ? documents : [documents]).flatMap((doc) => doc.errors)[0];
  if (error === undefined) return { kind: 'valid' };
  const at = error.linePos?.[0];
  return { kind: 'invalid', message: `${name}:${at?.line ?? 0}:${at?.col ?? 0}: ${error.name}: ${error.message.trim()}` };
}

async function checkPython(source: string, name: string, python: PythonCompile): Promise<SyntaxVerdict> {
  const verdict = await python(source, name);
  if (verdict.kind !== 'invalid') return verdict;
  return invalid(source, name, verdict.line, verdict.column, verdict.message);
}

/** `name:line:col: message`, then the offending line and a caret under the column. */
function invalid(source: string, name: string, line: number, column: number, message: string): SyntaxVerdict {
  const header = `${name}:${line}:${column}: ${message}`;
  const text = line > 0 ? source.split('\n')[line - 1] : undefined;
  if (text === undefined) return { kind: 'invalid', message: header };
  const shown = text.replace(/\r$/, '').slice(0, 200);
  const caret = column > 0 && column <= shown.length + 1 ? `\n${' '.repeat(column - 1)}^` : '';
  return { kind: 'invalid', message: `${header}\n${shown}${caret}` };
}
