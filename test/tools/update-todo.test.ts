import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PathEscapeError, UsageError } from '../../lib/errors.js';
import { finishTool } from '../../tools/finish.js';
import { readProgress, updateTodoTool } from '../../tools/update-todo.js';
import { makeContext, makeTempDir, writeFiles } from '../helpers/workspace.js';

describe('update_todo', () => {
  it('echoes the list as the seed does and persists it for the next run', async () => {
    const root = makeTempDir();
    const items = [
      { task: 'reproduce the bug', done: true },
      { task: 'fix mean()', done: false },
    ];
    const result = await updateTodoTool.execute({ items }, makeContext(root));
    expect(result).toEqual({ content: 'Todo:\n[x] reproduce the bug\n[ ] fix mean()', ok: true, effect: { kind: 'todo', items } });
    expect(fs.readFileSync(path.join(root, '.rein/progress.json'), 'utf8')).toBe(
      '{"todo":[{"done":true,"task":"reproduce the bug"},{"done":false,"task":"fix mean()"}]}\n',
    );
    expect(readProgress(root)).toEqual(items);
  });

  it('replaces the previous list and leaves no temp files', async () => {
    const root = makeTempDir();
    await updateTodoTool.execute({ items: [{ task: 'a', done: false }] }, makeContext(root));
    await updateTodoTool.execute({ items: [] }, makeContext(root));
    expect(readProgress(root)).toEqual([]);
    expect(fs.readdirSync(path.join(root, '.rein')).sort()).toEqual(['.gitignore', 'progress.json']);
  });

  it('reads null when there is no progress and a usage error when it is corrupt', () => {
    const root = makeTempDir();
    expect(readProgress(root)).toBeNull();
    writeFiles(root, { '.rein/progress.json': '{"todo": [{"task": 1}]}' });
    expect(() => readProgress(root)).toThrow(UsageError);
    writeFiles(root, { '.rein/progress.json': '{not json' });
    expect(() => readProgress(root)).toThrow(/progress\.json: not valid JSON: line 1, column \d+/);
  });

  it('refuses to follow a .rein symlink out of the workspace', async () => {
    const root = makeTempDir();
    const outside = makeTempDir();
    fs.symlinkSync(outside, path.join(root, '.rein'));
    await expect(updateTodoTool.execute({ items: [] }, makeContext(root))).rejects.toThrow(PathEscapeError);
    expect(fs.readdirSync(outside)).toEqual([]);
  });
});

describe('finish', () => {
  it('only requests finishing; the machine decides', async () => {
    const result = await finishTool.execute({ summary: 'Fixed it; tests pass.' }, makeContext(makeTempDir()));
    expect(result).toEqual({ content: 'Finish requested.', ok: true, effect: { kind: 'finish', summary: 'Fixed it; tests pass.' } });
  });
});
