import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

describe('rein viz errors', () => {
  it('an --out it cannot write is bad usage naming the path, checked before any work, never a crash', async () => {
    const dir = makeTempDir();
    const trace = join(dir, 'trace.jsonl');
    writeFileSync(trace, `${JSON.stringify({ i: 0, t: 0, kind: 'start', task: 't' })}\n`);
    const missing = join(dir, 'missing-dir', 'x.html');
    const result = await runCli(['viz', trace, '--out', missing]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`cannot write --out ${missing}: the directory ${join(dir, 'missing-dir')} does not exist`);
    expect(result.stderr).not.toMatch(/crashed|rules file/);
    mkdirSync(join(dir, 'out'));
    const directory = await runCli(['viz', trace, '--out', join(dir, 'out')]);
    expect(directory.code).toBe(2);
    expect(directory.stderr).toContain('is a directory; give a file name');
    const fine = await runCli(['viz', trace, '--out', join(dir, 'out', 'run.html')]);
    expect(fine.code, fine.stderr).toBe(0);
    expect(existsSync(join(dir, 'out', 'run.html'))).toBe(true);
  }, 120_000);

  it('an empty trace is refused like any trace with no lines', async () => {
    const dir = makeTempDir();
    writeFileSync(join(dir, 'empty.jsonl'), '');
    const empty = await runCli(['viz', join(dir, 'empty.jsonl'), '--out', join(dir, 'a.html')]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('holds no trace lines (the file is empty)');
    expect(existsSync(join(dir, 'a.html'))).toBe(false);
  }, 60_000);
});
