import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HiddenPathError, PathEscapeError } from '../../lib/errors.js';
import { resolveInWorkspace } from '../../tools/path-guard.js';
import { makeTempDir, writeFiles } from '../helpers/workspace.js';

describe('resolveInWorkspace', () => {
  it('resolves relative and absolute paths inside the root', () => {
    const root = makeTempDir();
    writeFiles(root, { 'src/a.py': 'x = 1\n' });
    expect(resolveInWorkspace(root, 'src/a.py')).toBe(path.join(root, 'src/a.py'));
    expect(resolveInWorkspace(root, path.join(root, 'src/a.py'))).toBe(path.join(root, 'src/a.py'));
    expect(resolveInWorkspace(root, 'src/../src/./new-file.py')).toBe(path.join(root, 'src/new-file.py'));
    expect(resolveInWorkspace(root, '.')).toBe(root);
    expect(resolveInWorkspace(root, '..hidden')).toBe(path.join(root, '..hidden'));
  });

  it('refuses .. escapes and absolute paths outside', () => {
    const root = makeTempDir();
    expect(() => resolveInWorkspace(root, '../outside.txt')).toThrow(PathEscapeError);
    expect(() => resolveInWorkspace(root, 'src/../../x')).toThrow(/is outside the workspace/);
    expect(() => resolveInWorkspace(root, '/etc/passwd')).toThrow(PathEscapeError);
    expect(() => resolveInWorkspace(root, `${root}-sibling/file`)).toThrow(PathEscapeError);
  });

  it('refuses a symlinked file that points outside', () => {
    const root = makeTempDir();
    const outside = makeTempDir();
    writeFiles(outside, { 'secret.txt': 'token' });
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'innocent.txt'));
    expect(() => resolveInWorkspace(root, 'innocent.txt')).toThrow(/through a symlink/);
  });

  it('refuses writes below a symlinked directory that points outside, even to new files', () => {
    const root = makeTempDir();
    const outside = makeTempDir();
    fs.symlinkSync(outside, path.join(root, 'linked'));
    expect(() => resolveInWorkspace(root, 'linked/new/deeper.txt')).toThrow(PathEscapeError);
    expect(() => resolveInWorkspace(root, 'linked')).toThrow(PathEscapeError);
  });

  it('refuses a dangling symlink whose target would be created outside', () => {
    const root = makeTempDir();
    const outside = makeTempDir();
    fs.symlinkSync(path.join(outside, 'not-yet.txt'), path.join(root, 'dangling'));
    fs.symlinkSync(path.join(outside, 'missing-dir'), path.join(root, 'dangling-dir'));
    expect(() => resolveInWorkspace(root, 'dangling')).toThrow(PathEscapeError);
    expect(() => resolveInWorkspace(root, 'dangling-dir/file')).toThrow(PathEscapeError);
  });

  it('accepts symlinks that stay inside and returns the real path', () => {
    const root = makeTempDir();
    writeFiles(root, { 'real/a.txt': 'a' });
    fs.symlinkSync(path.join(root, 'real'), path.join(root, 'alias'));
    fs.symlinkSync('real/a.txt', path.join(root, 'relative-link'));
    expect(resolveInWorkspace(root, 'alias/a.txt')).toBe(path.join(root, 'real/a.txt'));
    expect(resolveInWorkspace(root, 'alias/new.txt')).toBe(path.join(root, 'real/new.txt'));
    expect(resolveInWorkspace(root, 'relative-link')).toBe(path.join(root, 'real/a.txt'));
  });

  it('reports a symlink loop as an escape error, not a crash', () => {
    const root = makeTempDir();
    fs.symlinkSync('loop-b', path.join(root, 'loop-a'));
    fs.symlinkSync('loop-a', path.join(root, 'loop-b'));
    expect(() => resolveInWorkspace(root, 'loop-a/x')).toThrow(PathEscapeError);
  });
});

describe('resolveInWorkspace and the sandbox policy', () => {
  it('refuses .env files unless permissions.readable names them, also through a symlink, and what permissions.hidden names', () => {
    const root = makeTempDir();
    writeFiles(root, { '.env': 'A=1', 'app/.env.local': 'B=2', '.env.example': 'A=', 'keys/dev.pem': 'k', 'src/main.py': '' });
    fs.symlinkSync('.env', path.join(root, 'settings'));
    fs.mkdirSync(path.join(root, '.env.d'));
    expect(() => resolveInWorkspace(root, '.env')).toThrow(HiddenPathError);
    expect(() => resolveInWorkspace(root, 'app/.env.local')).toThrow(/is hidden from the agent: .env files in the workspace are hidden unless permissions.readable names them/);
    expect(() => resolveInWorkspace(root, 'settings')).toThrow(HiddenPathError);
    expect(resolveInWorkspace(root, '.env.d')).toBe(path.join(root, '.env.d'));
    expect(resolveInWorkspace(root, '.env.example', { readable: ['.env.example'] })).toBe(path.join(root, '.env.example'));
    expect(() => resolveInWorkspace(root, '.env', { readable: ['.env.example'] })).toThrow(HiddenPathError);
    expect(() => resolveInWorkspace(root, 'keys/dev.pem', { hidden: ['*.pem'] })).toThrow(/hidden by permissions.hidden/);
    expect(resolveInWorkspace(root, 'src/main.py', { hidden: ['*.pem'] })).toBe(path.join(root, 'src/main.py'));
  });

  it('refuses credential paths when the workspace holds the home directory', () => {
    const home = makeTempDir();
    writeFiles(home, { '.ssh/id_ed25519': 'key', '.aws/credentials': 'x', 'notes.txt': 'fine' });
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      expect(() => resolveInWorkspace(home, '.ssh/id_ed25519')).toThrow(/a credential path/);
      expect(() => resolveInWorkspace(home, '.aws')).toThrow(HiddenPathError);
      expect(resolveInWorkspace(home, 'notes.txt')).toBe(path.join(home, 'notes.txt'));
    } finally {
      process.env.HOME = saved;
    }
  });
});
