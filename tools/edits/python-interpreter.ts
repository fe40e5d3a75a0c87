import fs from 'node:fs';
import path from 'node:path';
import { findOnPath } from '../sandbox/plan/find-on-path.js';

/**
 * The interpreter a `python3` on PATH runs, found without running it: a pyenv shim (`<root>/shims/python3`) is a
 * chain of bash scripts that costs hundreds of milliseconds at every start, so the version it would choose is read
 * as pyenv reads it (PYENV_VERSION, else the nearest `.python-version` from `cwd` up, else `<root>/version`) and that
 * version's own `bin/python3` is run. Anything this does not read exactly as pyenv would (the system Python, a
 * version prefix, no version named, another version manager) gives back the command as it was.
 *
 * @example resolvePython('python3', process.env, '/work/repo') // '/home/me/.pyenv/versions/3.11.7/bin/python3'
 */
export function resolvePython(command: string, env: NodeJS.ProcessEnv, cwd: string): string {
  const found = findOnPath(command, env.PATH);
  if (found === null || path.basename(path.dirname(found)) !== 'shims') return command;
  const root = env.PYENV_ROOT || path.dirname(path.dirname(found));
  if (!fs.existsSync(path.join(root, 'versions'))) return command;
  for (const name of versionNames(env, cwd, root)) {
    // A name that is not a folder of versions/ (the system Python, a prefix pyenv completes, a path) is pyenv's to resolve.
    if (name.includes('/') || name.includes('..') || !fs.existsSync(path.join(root, 'versions', name))) return command;
    const candidate = path.join(root, 'versions', name, 'bin', command);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // pyenv goes on to the next version named; so does this
    }
  }
  return command;
}

/** The versions pyenv would try, in order; empty when none is named. */
function versionNames(env: NodeJS.ProcessEnv, cwd: string, root: string): string[] {
  if (env.PYENV_VERSION) return env.PYENV_VERSION.split(':').filter(Boolean);
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const names = readVersionFile(path.join(dir, '.python-version'));
    if (names !== null) return names;
    if (path.dirname(dir) === dir) break;
  }
  return readVersionFile(path.join(root, 'version')) ?? [];
}

/** A version file's names (the first word of each line, comment lines skipped), or null when there is no such file. */
function readVersionFile(file: string): string[] | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  return text
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0]!)
    .filter((word) => word !== '' && !word.startsWith('#'));
}
