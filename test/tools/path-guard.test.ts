import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HiddenPathError, PathEscapeError } from '../../lib/errors.js';
import { hiddenReason, resolveInWorkspace, resolveWritableInWorkspace, toWorkspaceRelative } from '../../tools/permissions/path-guard.js';
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
    expect(() => resolveInWorkspace(root, '..')).toThrow(PathEscapeError);
    expect(() => resolveInWorkspace(root, '../outside.txt')).toThrow(`"../outside.txt" is outside the workspace (${root})`);
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
    expect(() => resolveInWorkspace(root, 'loop-a/x')).toThrow(/^too many levels of symbolic links at /);
    // The kernel's answer names the path the model asked for, not some link along the loop.
    expect(() => resolveInWorkspace(root, 'loop-a/x')).toThrow(new PathEscapeError(`too many levels of symbolic links at ${path.join(root, 'loop-a/x')}`));
  });

  it('stops a loop the kernel never sees (dangling links it follows by hand) after 40 hops, like the kernel', () => {
    // `missing/../b` fails in the kernel (no `missing`) but resolves lexically to `b`: only rein's own hop count ends it.
    const root = makeTempDir();
    fs.symlinkSync('missing/../b', path.join(root, 'a'));
    fs.symlinkSync('missing/../a', path.join(root, 'b'));
    expect(() => resolveInWorkspace(root, 'a')).toThrow(/^too many levels of symbolic links at /);
    const chain = (links: number) => {
      const dir = makeTempDir();
      for (let index = 0; index < links; index++) fs.symlinkSync(`missing/../link${index + 1}`, path.join(dir, `link${index}`));
      return dir;
    };
    // 40 links followed by hand (the kernel's own limit) are allowed; a 41st is too many.
    const fits = chain(40);
    expect(resolveInWorkspace(fits, 'link0')).toBe(path.join(fits, 'link40'));
    expect(() => resolveInWorkspace(chain(41), 'link0')).toThrow(/too many levels/);
  });

  it('refuses a NUL byte, and quotes long paths in messages cut to 200 characters', () => {
    const root = makeTempDir();
    expect(() => resolveInWorkspace(root, 'a\0b')).toThrow(new PathEscapeError('"a\\u0000b" contains a NUL byte'));
    const long = `../${'x'.repeat(300)}`;
    expect(() => resolveInWorkspace(root, long)).toThrow(`"${long.slice(0, 200)}..." is outside the workspace`);
    const exactly = `../${'y'.repeat(197)}`;
    expect(() => resolveInWorkspace(root, exactly)).toThrow(`"${exactly}" is outside the workspace`);
    const over = `../${'z'.repeat(198)}`;
    expect(() => resolveInWorkspace(root, over)).toThrow(`"${over.slice(0, 200)}..." is outside the workspace`);
  });

  it('a path through a file is not an error here (the tool reports it), but an unexpected file-system error is not hidden', () => {
    const root = makeTempDir();
    writeFiles(root, { 'file.txt': 'x' });
    expect(resolveInWorkspace(root, 'file.txt/below')).toBe(path.join(root, 'file.txt/below'));
    expect(() => resolveInWorkspace(root, 'n'.repeat(300))).toThrow(expect.objectContaining({ code: 'ENAMETOOLONG' }));
    expect(() => hiddenReason(root, path.join(root, 'n'.repeat(300)))).toThrow(expect.objectContaining({ code: 'ENAMETOOLONG' }));
  });
});

describe('resolveWritableInWorkspace', () => {
  it("refuses rein's own files and the files a run protects, and allows the rest", () => {
    const root = makeTempDir();
    writeFiles(root, { 'src/a.py': 'x', 'rules.json': '{}' });
    expect(resolveWritableInWorkspace(root, 'src/a.py')).toBe(path.join(root, 'src/a.py'));
    expect(() => resolveWritableInWorkspace(root, '.rein/progress.json')).toThrow(
      '".rein/progress.json" belongs to rein (its state or rules file); the agent may not change it',
    );
    expect(() => resolveWritableInWorkspace(root, 'rein.config.mjs')).toThrow(PathEscapeError);
    const rulesFile = path.join(root, 'rules.json');
    expect(() => resolveWritableInWorkspace(root, 'rules.json', [rulesFile])).toThrow(/belongs to rein/);
    expect(resolveWritableInWorkspace(root, 'src/a.py', [rulesFile])).toBe(path.join(root, 'src/a.py'));
    // A protected file that does not exist (yet) is compared as given.
    expect(() => resolveWritableInWorkspace(root, 'later.json', [path.join(root, 'later.json')])).toThrow(/belongs to rein/);
  });

  it('compares protected files by their real path', () => {
    const root = makeTempDir();
    writeFiles(root, { 'real/rules.json': '{}' });
    fs.symlinkSync(path.join(root, 'real'), path.join(root, 'alias'));
    expect(() => resolveWritableInWorkspace(root, 'real/rules.json', [path.join(root, 'alias/rules.json')])).toThrow(/belongs to rein/);
  });
});

describe('toWorkspaceRelative', () => {
  it('gives . for the root and /-separated paths below it', () => {
    expect(toWorkspaceRelative('/ws', '/ws')).toBe('.');
    expect(toWorkspaceRelative('/ws', '/ws/src/a.py')).toBe('src/a.py');
  });
});

describe('resolveInWorkspace and the sandbox policy', () => {
  it('refuses .env files unless permissions.readable names them, also through a symlink, and what permissions.hidden names', () => {
    const root = makeTempDir();
    writeFiles(root, { '.env': 'A=1', 'app/.env.local': 'B=2', '.env.example': 'A=', 'keys/dev.pem': 'k', 'src/main.py': '' });
    fs.symlinkSync('.env', path.join(root, 'settings'));
    fs.mkdirSync(path.join(root, '.env.d'));
    expect(() => resolveInWorkspace(root, '.env')).toThrow(HiddenPathError);
    expect(() => resolveInWorkspace(root, 'app/.env.local')).toThrow(
      /is hidden from the agent: .env files in the workspace are hidden unless permissions.readable names them/,
    );
    expect(() => resolveInWorkspace(root, 'settings')).toThrow(HiddenPathError);
    expect(resolveInWorkspace(root, '.env.d')).toBe(path.join(root, '.env.d'));
    expect(resolveInWorkspace(root, '.env.example', { readable: ['.env.example'] })).toBe(path.join(root, '.env.example'));
    expect(() => resolveInWorkspace(root, '.env', { readable: ['.env.example'] })).toThrow(HiddenPathError);
    expect(() => resolveInWorkspace(root, 'keys/dev.pem', { hidden: ['*.pem'] })).toThrow(/hidden by permissions.hidden/);
    expect(resolveInWorkspace(root, 'src/main.py', { hidden: ['*.pem'] })).toBe(path.join(root, 'src/main.py'));
  });

  it('refuses a .env name whether or not it exists, so the answer tells nothing about the file system', () => {
    const root = makeTempDir();
    writeFiles(root, { 'notes.txt': 'x' });
    for (const name of ['.env', 'app/.env.local', 'notes.txt/.env']) {
      expect(() => resolveInWorkspace(root, name), name).toThrow(HiddenPathError);
    }
    expect(hiddenReason(root, path.join(root, '.env'))).toBe('.env files in the workspace are hidden unless permissions.readable names them');
  });

  it('refuses credential paths when the workspace holds the home directory', () => {
    // The home directory is passed in, as the sandbox takes it: HOME set in a worker thread does not reach os.homedir().
    const home = makeTempDir();
    writeFiles(home, { '.ssh/id_ed25519': 'key', '.aws/credentials': 'x', 'notes.txt': 'fine' });
    expect(() => resolveInWorkspace(home, '.ssh/id_ed25519', { home })).toThrow(/a credential path/);
    expect(() => resolveInWorkspace(home, '.aws', { home })).toThrow(HiddenPathError);
    expect(resolveInWorkspace(home, 'notes.txt', { home })).toBe(path.join(home, 'notes.txt'));
    // The same files are no credentials when the workspace is not the home directory.
    expect(resolveInWorkspace(home, '.ssh/id_ed25519', { home: makeTempDir() })).toBe(path.join(home, '.ssh/id_ed25519'));
  });
});
