import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MissingFileError } from '../../lib/errors.js';
import { grepTool } from '../../tools/grep.js';
import { makeContext, makeTempDir, writeFiles } from '../helpers/workspace.js';

const grep = (root: string, pattern: string, where = '.') => grepTool.execute({ pattern, path: where }, makeContext(root));

describe('grep', () => {
  it('lists relpath:line: trimmed text in sorted path order across text files', async () => {
    const root = makeTempDir();
    writeFiles(root, {
      'b.py': 'def total():\n    return 1\n',
      'a/x.ts': '  export function total() {}\n',
      'a.md': 'The total is wrong.\r\n',
    });
    const result = await grep(root, 'total\\b');
    expect(result.content).toBe(['a/x.ts:1: export function total() {}', 'a.md:1: The total is wrong.', 'b.py:1: def total():'].join('\n'));
    expect(result.effect).toEqual({ kind: 'search', pattern: 'total\\b' });
  });

  it('matches `$` before a CRLF line ending', async () => {
    const root = makeTempDir();
    writeFiles(root, { 'win.txt': 'ends here\r\nnext\r\n' });
    expect((await grep(root, 'here$')).content).toBe('win.txt:1: ends here');
  });

  it('shows up to maxHits hits, then only the count', async () => {
    const root = makeTempDir();
    writeFiles(root, { 'fifty.txt': 'hit\n'.repeat(50), 'other.txt': 'miss\n' });
    const fifty = await grep(root, 'hit');
    expect(fifty.content.split('\n')).toHaveLength(50);
    writeFiles(root, { 'more.txt': 'hit\n'.repeat(10) });
    expect((await grep(root, 'hit')).content).toBe('60 matches. Too many to show; use a more specific pattern.');
  });

  it('stops counting at a large bound', async () => {
    const root = makeTempDir();
    writeFiles(root, { 'many.txt': 'x\n'.repeat(20_000), 'later.txt': 'x\n' });
    expect((await grep(root, 'x')).content).toBe('More than 10000 matches. Too many to show; use a more specific pattern.');
  });

  it('says No matches. when nothing matches', async () => {
    const root = makeTempDir();
    writeFiles(root, { 'a.txt': 'hello\n' });
    expect((await grep(root, 'absent')).content).toBe('No matches.');
  });

  it('skips .git, node_modules, binary files and .gitignore rules, with nested re-includes', async () => {
    const root = makeTempDir();
    writeFiles(root, {
      '.gitignore': 'build/\n*.log\n',
      'src/app.js': 'needle\n',
      'build/out.js': 'needle\n',
      'debug.log': 'needle\n',
      'logs/.gitignore': '!keep.log\n',
      'logs/keep.log': 'needle\n',
      'logs/drop.log.txt': 'needle\n',
      '.git/config': 'needle\n',
      'node_modules/pkg/index.js': 'needle\n',
      'blob.bin': Buffer.concat([Buffer.from('needle\n'), Buffer.from([0, 1, 2])]),
    });
    expect((await grep(root, 'needle')).content).toBe(['logs/drop.log.txt:1: needle', 'logs/keep.log:1: needle', 'src/app.js:1: needle'].join('\n'));
  });

  it('searches an ignored directory when asked for it explicitly', async () => {
    const root = makeTempDir();
    writeFiles(root, { '.gitignore': 'build/\n', 'build/out.js': 'needle\n', 'src/a.js': 'needle\n' });
    expect((await grep(root, 'needle', 'build')).content).toBe('build/out.js:1: needle');
    expect((await grep(root, 'needle', 'src/a.js')).content).toBe('src/a.js:1: needle');
  });

  it('returns a clear error for an invalid regex and throws for a missing path', async () => {
    const root = makeTempDir();
    const bad = await grep(root, '(?P<name>x)');
    expect(bad.ok).toBe(false);
    expect(bad.content).toMatch(/^Invalid pattern: Invalid regular expression: .*JavaScript RegExp syntax/s);
    await expect(grep(root, 'x', 'missing-dir')).rejects.toThrow(MissingFileError);
  });

  it('shows a window around the match on a very long line and streams big files', async () => {
    const root = makeTempDir();
    const file = path.join(root, 'bundle.min.js');
    const fd = fs.openSync(file, 'w');
    const filler = Buffer.alloc(1024 * 1024, 'a');
    for (let i = 0; i < 60; i += 1) fs.writeSync(fd, Buffer.concat([filler, Buffer.from('\n')]));
    fs.writeSync(fd, Buffer.from(`${'b'.repeat(5000)}NEEDLE${'c'.repeat(5000)}\n`));
    fs.closeSync(fd);
    const before = process.memoryUsage().rss;
    const result = await grep(root, 'NEEDLE');
    expect(process.memoryUsage().rss - before).toBeLessThan(60 * 1024 * 1024);
    expect(result.content).toMatch(/^bundle\.min\.js:61: \.\.\.b{80}NEEDLEc{154}\.\.\.$/);
  }, 30_000);
});
