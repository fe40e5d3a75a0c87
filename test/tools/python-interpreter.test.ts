import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolvePython } from '../../tools/edits/python-interpreter.js';
import { makeTempDir } from '../helpers/workspace.js';

/** A pyenv installation: shims/python3, and an interpreter in versions/<name>/bin for each name given. */
function fakePyenv(versions: string[], globalVersion: string | null): string {
  const root = makeTempDir();
  const executable = (file: string) => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '#!/bin/sh\n', { mode: 0o755 });
  };
  executable(path.join(root, 'shims', 'python3'));
  for (const version of versions) executable(path.join(root, 'versions', version, 'bin', 'python3'));
  if (globalVersion !== null) fs.writeFileSync(path.join(root, 'version'), `${globalVersion}\n`);
  return root;
}

describe('resolvePython: the interpreter behind a pyenv shim, read as pyenv reads it', () => {
  it('takes PYENV_VERSION, else the nearest .python-version from the directory up, else the global version file', () => {
    const root = fakePyenv(['3.11.7', '3.12.1', '3.10.13'], '3.11.7');
    const env = { PATH: `${path.join(root, 'shims')}:/usr/bin` };
    const project = makeTempDir();
    const nested = path.join(project, 'src', 'pkg');
    fs.mkdirSync(nested, { recursive: true });
    const interpreter = (version: string) => path.join(root, 'versions', version, 'bin', 'python3');
    expect(resolvePython('python3', env, nested)).toBe(interpreter('3.11.7'));
    fs.writeFileSync(path.join(project, '.python-version'), '# pinned\n3.12.1\n');
    expect(resolvePython('python3', env, nested)).toBe(interpreter('3.12.1'));
    expect(resolvePython('python3', { ...env, PYENV_VERSION: '3.10.13' }, nested)).toBe(interpreter('3.10.13'));
  });

  it('gives the command back where pyenv would decide otherwise: the system Python, a prefix, an unknown version, no shim', () => {
    const root = fakePyenv(['3.11.7'], 'system');
    const env = { PATH: `${path.join(root, 'shims')}:/usr/bin` };
    const cwd = makeTempDir();
    expect(resolvePython('python3', env, cwd)).toBe('python3');
    expect(resolvePython('python3', { ...env, PYENV_VERSION: '3.11' }, cwd)).toBe('python3');
    expect(resolvePython('python3', { ...env, PYENV_VERSION: '3.9.1:3.11.7' }, cwd)).toBe('python3');
    expect(resolvePython('python3', { ...env, PYENV_VERSION: '../../etc' }, cwd)).toBe('python3');
    expect(resolvePython('python3', { PATH: path.join(root, 'versions', '3.11.7', 'bin'), PYENV_VERSION: '3.11.7' }, cwd)).toBe('python3');
  });

  it('goes on to the next version named when one has no python3, as pyenv does', () => {
    const root = fakePyenv(['3.11.7'], null);
    fs.mkdirSync(path.join(root, 'versions', 'pypy-only', 'bin'), { recursive: true });
    const env = { PATH: path.join(root, 'shims'), PYENV_VERSION: 'pypy-only:3.11.7' };
    expect(resolvePython('python3', env, makeTempDir())).toBe(path.join(root, 'versions', '3.11.7', 'bin', 'python3'));
  });
});
