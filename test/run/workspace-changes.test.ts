import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { watchChildChanges } from '../../run/delegation/workspace-changes.js';
import { removeTempDirs } from '../../testing/index.js';
import { makeTempDir } from '../helpers/workspace.js';

afterEach(() => removeTempDirs());

function workspaceWith(files: Record<string, string>): string {
  const workspace = makeTempDir('rein-ws-');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(workspace, path, '..'), { recursive: true });
    writeFileSync(join(workspace, path), text);
  }
  return workspace;
}

describe("what a child's commands changed in the workspace (run/delegation/workspace-changes.ts)", () => {
  it('lists created, changed and deleted files, sorted, and nothing for an untouched one', () => {
    const workspace = workspaceWith({ 'b.txt': 'b\n', 'src/a.txt': 'a\n', 'same.txt': 'same\n' });
    const changes = watchChildChanges({ workspace, runDir: makeTempDir('rein-run-'), exclude: [] });
    writeFileSync(join(workspace, 'src/a.txt'), 'a changed, longer\n');
    rmSync(join(workspace, 'b.txt'));
    writeFileSync(join(workspace, 'new.txt'), 'new\n');
    expect(changes.changed()).toEqual(['b.txt', 'new.txt', 'src/a.txt']);
  });

  it('leaves out the excluded folders and the run’s own files', () => {
    const workspace = workspaceWith({ 'a.txt': 'a\n' });
    const changes = watchChildChanges({ workspace, runDir: makeTempDir('rein-run-'), exclude: ['node_modules/'] });
    mkdirSync(join(workspace, 'node_modules/pkg'), { recursive: true });
    writeFileSync(join(workspace, 'node_modules/pkg/index.js'), 'x\n');
    mkdirSync(join(workspace, '.rein/runs/r'), { recursive: true });
    writeFileSync(join(workspace, '.rein/runs/r/trace.jsonl'), '{}\n');
    expect(changes.changed()).toEqual([]);
  });

  it('a resumed child compares with the workspace its first start saw (kept in its run directory)', () => {
    const workspace = workspaceWith({ 'a.txt': 'a\n' });
    const runDir = makeTempDir('rein-run-');
    watchChildChanges({ workspace, runDir, exclude: [] });
    // The child changes a file, is killed, and is started again: the change is still its own.
    writeFileSync(join(workspace, 'a.txt'), 'a changed before the kill\n');
    expect(watchChildChanges({ workspace, runDir, exclude: [] }).changed()).toEqual(['a.txt']);
  });

  it('a damaged kept fingerprint (a kill while writing it) is taken again, not trusted', () => {
    const workspace = workspaceWith({ 'a.txt': 'a\n' });
    const runDir = makeTempDir('rein-run-');
    writeFileSync(join(runDir, 'workspace-before.json'), '{"a.txt": "cut');
    const changes = watchChildChanges({ workspace, runDir, exclude: [] });
    expect(changes.changed()).toEqual([]);
    writeFileSync(join(workspace, 'a.txt'), 'a, then changed\n');
    expect(changes.changed()).toEqual(['a.txt']);
  });
});
