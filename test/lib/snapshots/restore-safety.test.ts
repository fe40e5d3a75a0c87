import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { snapshotExclusion } from '../../../lib/snapshots/exclusion.js';
import { openObjectStore, SnapshotObjectError } from '../../../lib/snapshots/object-store.js';
import { restoreTree } from '../../../lib/snapshots/restore-tree.js';
import { flattenTree } from '../../../lib/snapshots/tree-format.js';
import { createTreeScanner } from '../../../lib/snapshots/tree-scan.js';
import { makeTempDir } from '../../../testing/index.js';

function setup() {
  const base = makeTempDir('rein-test-snap-');
  const workspace = join(base, 'ws');
  mkdirSync(workspace);
  const store = openObjectStore(join(base, 'store'));
  const scanner = createTreeScanner({ workspace, store, excluded: snapshotExclusion(['node_modules/']) });
  return { base, workspace, store, scanner };
}

describe('snapshots read and restore only inside the workspace', () => {
  it('a symlink planted where a folder was is replaced, never written through', () => {
    const { base, workspace, store, scanner } = setup();
    mkdirSync(join(workspace, 'd'));
    writeFileSync(join(workspace, 'd', 'x'), 'inside\n');
    const target = flattenTree(store, scanner.scan().tree);
    const outside = join(base, 'outside');
    mkdirSync(outside);
    execFileSync('rm', ['-r', join(workspace, 'd')]);
    symlinkSync(outside, join(workspace, 'd'));
    const report = restoreTree({ root: workspace, store, target, current: flattenTree(store, scanner.scan().tree) });
    expect(report.failed).toEqual([]);
    expect(existsSync(join(outside, 'x'))).toBe(false);
    expect(lstatSync(join(workspace, 'd')).isDirectory()).toBe(true);
    expect(readFileSync(join(workspace, 'd', 'x'), 'utf8')).toBe('inside\n');
  });

  it('a scan records links as links and never reads what they point at, nor .git, .rein/ or excluded folders', () => {
    const { base, workspace, store, scanner } = setup();
    writeFileSync(join(base, 'secret'), 'outside the workspace\n');
    symlinkSync(join(base, 'secret'), join(workspace, 'link'));
    for (const dir of ['.git', '.rein', 'node_modules', 'sub/.git']) {
      mkdirSync(join(workspace, dir), { recursive: true });
      writeFileSync(join(workspace, dir, 'file'), 'x');
    }
    const entries = flattenTree(store, scanner.scan().tree);
    expect([...entries.keys()].sort()).toEqual(['link', 'sub']);
    expect(entries.get('link')).toEqual({ path: 'link', type: 'link', target: join(base, 'secret') });
  });

  it('a tree object naming .., a slash or .git is refused before anything is written', () => {
    const { store } = setup();
    for (const name of ['..', 'a/b', '.git', '.GIT', '']) {
      const tree = store.put(JSON.stringify({ tree: 1, rows: [[name, 'f', 0o644, store.put('x'), 1]] }));
      expect(() => flattenTree(store, tree), name).toThrow(SnapshotObjectError);
    }
  });

  it('a hard link in a tree object goes to a path inside the tree, to a file with its bytes, or is written as a copy', () => {
    const { base, workspace, store } = setup();
    for (const link of ['../outside', '/etc/passwd', 'a/../../x', '.git/config', '']) {
      const tree = store.put(JSON.stringify({ tree: 1, rows: [['a', 'f', 0o644, store.put('x'), 1, link]] }));
      expect(() => flattenTree(store, tree), link).toThrow(SnapshotObjectError);
    }
    // A link naming a file of other bytes (or a path the tree does not hold as a file) gets the entry's own bytes.
    writeFileSync(join(base, 'outside'), 'outside\n');
    const rows = [
      ['a', 'f', 0o644, store.put('a bytes'), 7],
      ['b', 'f', 0o644, store.put('b bytes'), 7, 'a'],
      ['c', 'f', 0o644, store.put('c bytes'), 7, 'missing'],
      ['l', 'l', join(base, 'outside')],
      ['m', 'f', 0o644, store.put('m bytes'), 7, 'l'],
    ];
    const target = flattenTree(store, store.put(JSON.stringify({ tree: 1, rows })));
    expect(restoreTree({ root: workspace, store, target, current: new Map() }).failed).toEqual([]);
    for (const name of ['a', 'b', 'c', 'm']) expect(readFileSync(join(workspace, name), 'utf8')).toBe(`${name} bytes`);
    expect(statSync(join(workspace, 'b')).ino).not.toBe(statSync(join(workspace, 'a')).ino);
    expect(readFileSync(join(base, 'outside'), 'utf8')).toBe('outside\n');
  });

  it('an object whose bytes were changed in the store is refused', () => {
    const { base, store } = setup();
    const id = store.put('original');
    writeFileSync(join(base, 'store', 'objects', id.slice(0, 2), id.slice(2)), 'tampered');
    expect(() => openObjectStore(join(base, 'store')).get(id)).toThrow(/damaged/);
  });

  it('a file rewritten with the same size and its old mtime is still seen as changed (ctime)', async () => {
    const { workspace, scanner } = setup();
    const file = join(workspace, 'same-size');
    writeFileSync(file, 'aaaa');
    const old = new Date(Date.now() - 60_000);
    utimesSync(file, old, old);
    // Past the window in which a fresh timestamp cannot be trusted.
    await new Promise((resolve) => setTimeout(resolve, 120));
    const first = scanner.scan().tree;
    expect(scanner.scan().hashed).toBe(0);
    writeFileSync(file, 'bbbb');
    utimesSync(file, old, old);
    expect(statSync(file).size).toBe(4);
    const second = scanner.scan();
    expect(second.tree).not.toBe(first);
    expect(readFileSync(file, 'utf8')).toBe('bbbb');
  });
});
