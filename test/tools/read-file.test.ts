import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MissingFileError, PathEscapeError } from '../../lib/errors.js';
import { readFileTool } from '../../tools/read-file.js';
import { makeContext, makeTempDir, writeFiles } from '../helpers/workspace.js';

const numbered = (count: number): string => Array.from({ length: count }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

describe('read_file', () => {
  it('shows a 100-line window with the seed header and numbering', async () => {
    const root = makeTempDir();
    writeFiles(root, { 'src/big.txt': numbered(250) });
    const result = await readFileTool.execute({ path: 'src/big.txt', start: 101 }, makeContext(root));
    const lines = result.content.split('\n');
    expect(lines[0]).toBe('[src/big.txt: lines 101-200 of 250; 100 above, 50 below]');
    expect(lines[1]).toBe('  101  line 101');
    expect(lines.at(-1)).toBe('  200  line 200');
    expect(lines).toHaveLength(101);
    expect(result.effect).toEqual({ kind: 'read', path: 'src/big.txt' });
  });

  it('clips the last window, counts a final line without newline, and clamps start below 1', async () => {
    const root = makeTempDir();
    writeFiles(root, { 'a.txt': 'one\ntwo\nthree' });
    const tail = await readFileTool.execute({ path: 'a.txt', start: 2 }, makeContext(root));
    expect(tail.content).toBe('[a.txt: lines 2-3 of 3; 1 above, 0 below]\n    2  two\n    3  three');
    const clamped = await readFileTool.execute({ path: 'a.txt', start: -5 }, makeContext(root));
    expect(clamped.content.split('\n')[0]).toBe('[a.txt: lines 1-3 of 3; 0 above, 0 below]');
    const past = await readFileTool.execute({ path: 'a.txt', start: 9 }, makeContext(root));
    expect(past.content).toBe('[a.txt: start 9 is past the end; the file has 3 lines]');
  });

  it('throws MissingFileError for missing files and directories, PathEscapeError outside', async () => {
    const root = makeTempDir();
    fs.mkdirSync(path.join(root, 'dir'));
    const ctx = makeContext(root);
    await expect(readFileTool.execute({ path: 'nope.py', start: 1 }, ctx)).rejects.toThrow(MissingFileError);
    await expect(readFileTool.execute({ path: 'nope.py', start: 1 }, ctx)).rejects.toThrow('nope.py does not exist');
    await expect(readFileTool.execute({ path: 'dir', start: 1 }, ctx)).rejects.toThrow(/is a directory/);
    await expect(readFileTool.execute({ path: '../../etc/passwd', start: 1 }, ctx)).rejects.toThrow(PathEscapeError);
  });

  it('describes binary files instead of dumping them', async () => {
    const root = makeTempDir();
    writeFiles(root, { 'img.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]) });
    const result = await readFileTool.execute({ path: 'img.png', start: 1 }, makeContext(root));
    expect(result.content).toBe('[img.png: binary file, 7 bytes; not shown]');
  });

  it('decodes invalid UTF-8 with replacement characters and hides CRLF carriage returns', async () => {
    const root = makeTempDir();
    writeFiles(root, { 'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0d, 0x0a, 0x6f, 0x6b]) });
    const result = await readFileTool.execute({ path: 'latin1.txt', start: 1 }, makeContext(root));
    expect(result.content).toBe('[latin1.txt: lines 1-2 of 2; 0 above, 0 below]\n    1  caf\uFFFD\n    2  ok');
  });

  it('cuts very long lines with a marker', async () => {
    const root = makeTempDir();
    writeFiles(root, { 'min.js': `${'x'.repeat(50_000)}\nshort\n` });
    const result = await readFileTool.execute({ path: 'min.js', start: 1 }, makeContext(root));
    const [, first, second] = result.content.split('\n');
    expect(first).toBe(`    1  ${'x'.repeat(2000)}...[line cut at 2000 chars; 50000 bytes in full]`);
    expect(second).toBe('    2  short');
  });

  it('streams a 100 MB file: correct count, bounded memory', async () => {
    const root = makeTempDir();
    const file = path.join(root, 'huge.log');
    const block = Buffer.from(`${'y'.repeat(99)}\n`.repeat(10_000)); // 1 MB, 10,000 lines
    const fd = fs.openSync(file, 'w');
    for (let i = 0; i < 100; i += 1) fs.writeSync(fd, block);
    fs.closeSync(fd);
    const before = process.memoryUsage().rss;
    const result = await readFileTool.execute({ path: 'huge.log', start: 999_950 }, makeContext(root));
    const grown = process.memoryUsage().rss - before;
    expect(result.content.split('\n')[0]).toBe('[huge.log: lines 999950-1000000 of 1000000; 999949 above, 0 below]');
    expect(grown).toBeLessThan(50 * 1024 * 1024);
  }, 30_000);

  it('streams a single 100 MB line without holding it', async () => {
    const root = makeTempDir();
    const file = path.join(root, 'one-line.min.js');
    const block = Buffer.alloc(1024 * 1024, 'z');
    const fd = fs.openSync(file, 'w');
    for (let i = 0; i < 100; i += 1) fs.writeSync(fd, block);
    fs.closeSync(fd);
    const before = process.memoryUsage().rss;
    const result = await readFileTool.execute({ path: 'one-line.min.js', start: 1 }, makeContext(root));
    const grown = process.memoryUsage().rss - before;
    expect(result.content).toBe(
      `[one-line.min.js: lines 1-1 of 1; 0 above, 0 below]\n    1  ${'z'.repeat(2000)}...[line cut at 2000 chars; 104857600 bytes in full]`,
    );
    expect(grown).toBeLessThan(50 * 1024 * 1024);
  }, 30_000);
});
