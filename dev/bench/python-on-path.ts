import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readSync } from 'node:fs';
import { delimiter, dirname } from 'node:path';

/** `python3` as found on PATH, and whether it is a script (a pyenv or asdf shim) rather than the interpreter. */
export interface PythonOnPath {
  path: string;
  interpreter: string;
  shim: boolean;
}

/** Which `python3` the PATH gives, and the interpreter it ends up running. Null when there is none. */
export function describePython(): PythonOnPath | null {
  try {
    const path = execFileSync('sh', ['-c', 'command -v python3'], { encoding: 'utf8' }).trim();
    const interpreter = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
    const fd = openSync(path, 'r');
    const magic = Buffer.alloc(2);
    readSync(fd, magic, 0, 2, 0);
    closeSync(fd);
    return { path, interpreter, shim: magic.toString() === '#!' };
  } catch {
    return null;
  }
}

/**
 * Runs `work` with the real interpreter's folder first on PATH when `python3`
 * is a shim, so the runs it starts (and their sandboxes, which take PATH from
 * the harness) skip the shim's start-up: the sections that use it measure
 * tokens and scheduling, not a version manager. Returns a sentence saying
 * which Python ran, for the section's notes.
 *
 * @example const { value, note } = await withDirectPython(() => measureSuiteTokens(configs, { parallel: 2 }));
 */
export async function withDirectPython<T>(work: () => Promise<T>): Promise<{ value: T; note: string }> {
  const python = describePython();
  if (!python?.shim) return { value: await work(), note: python ? `Python: ${python.interpreter}.` : 'No python3 on PATH.' };
  const before = process.env.PATH;
  process.env.PATH = `${dirname(python.interpreter)}${delimiter}${before ?? ''}`;
  try {
    const value = await work();
    return {
      value,
      note:
        `Python ran as ${python.interpreter} itself: python3 on PATH (${python.path}) is a shim, whose start-up ` +
        '(section 8 times it) would otherwise be most of these runs\u2019 wall time.',
    };
  } finally {
    process.env.PATH = before;
  }
}
