import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openObjectStore } from '../../../lib/snapshots/object-store.js';
import { restoreTree } from '../../../lib/snapshots/restore-tree.js';
import { flattenTree } from '../../../lib/snapshots/tree-format.js';
import { createTreeScanner } from '../../../lib/snapshots/tree-scan.js';
import { readSnapshotIndex } from '../../../run/record/snapshot-index.js';
import { makeTempDir } from '../../../testing/index.js';
import { repoRoot } from '../../helpers/cli.js';
import { waitUntil } from '../../helpers/wait.js';

/** A process that snapshots a changing workspace step after step, as a run does (objects first, its index line last), until killed. */
const SNAPSHOTTER = `
import { writeFileSync } from 'node:fs';
import { openObjectStore } from '${repoRoot}/dist/lib/snapshots/object-store.js';
import { createTreeScanner } from '${repoRoot}/dist/lib/snapshots/tree-scan.js';
import { appendSnapshotIndex, readSnapshotIndex } from '${repoRoot}/dist/run/record/snapshot-index.js';
const [workspace, storeRoot, runDir] = process.argv.slice(2);
const store = openObjectStore(storeRoot);
const scanner = createTreeScanner({ workspace, store, excluded: () => false });
let step = readSnapshotIndex(runDir).length;
for (;;) {
  for (let file = 0; file < 40; file++) writeFileSync(workspace + '/d' + (file % 8) + '/f' + ((step * 41 + file) % 400), 'step ' + step + ' file ' + file + '\\n'.repeat(file));
  const { tree } = scanner.scan();
  const chart = store.put(JSON.stringify({ step }));
  appendSnapshotIndex(runDir, { step, store: storeRoot, tree, chart, at: new Date().toISOString() });
  step++;
}
`;

describe('kill -9 in the middle of a snapshot', () => {
  it('leaves every step indexed before it restorable, byte for byte', async () => {
    const base = makeTempDir('rein-test-kill-snap-');
    const workspace = join(base, 'ws');
    const storeRoot = join(base, 'store');
    const runDir = join(base, 'run');
    mkdirSync(runDir);
    for (let dir = 0; dir < 8; dir++) {
      mkdirSync(join(workspace, `d${dir}`), { recursive: true });
      for (let file = 0; file < 400; file++) writeFileSync(join(workspace, `d${dir}`, `f${file}`), `start ${dir} ${file}\n`);
    }
    const script = join(base, 'snapshotter.mjs');
    writeFileSync(script, SNAPSHOTTER);
    let cut = 0;
    for (let round = 0; round < 6; round++) {
      const before = readSnapshotIndex(runDir).length;
      const child = spawn(process.execPath, [script, workspace, storeRoot, runDir], { stdio: 'ignore' });
      await waitUntil(() => readSnapshotIndex(runDir).length > before + (round % 3), 'the snapshotter to index a step', 30_000);
      await new Promise((resolve) => setTimeout(resolve, 7 * round));
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      // Objects that no index line names: a snapshot was under way when the kill came.
      const store = openObjectStore(storeRoot);
      const named = new Set<string>();
      for (const line of readSnapshotIndex(runDir)) {
        named.add(line.tree);
        named.add(line.chart!);
        for (const entry of flattenTree(store, line.tree).values()) if (entry.type !== 'link') named.add(entry.id);
      }
      const stored = readdirSync(join(storeRoot, 'objects')).flatMap((prefix) => readdirSync(join(storeRoot, 'objects', prefix)).map((rest) => prefix + rest));
      if (stored.some((id) => !named.has(id))) cut++;
    }
    expect(cut).toBeGreaterThan(0);
    const store = openObjectStore(storeRoot);
    const index = readSnapshotIndex(runDir);
    expect(index.length).toBeGreaterThan(6);
    for (const line of index) {
      const out = join(base, `out-${line.step}`);
      mkdirSync(out);
      expect(restoreTree({ root: out, store, target: flattenTree(store, line.tree), current: new Map() }).failed).toEqual([]);
      // Scanning what was restored gives the very tree that was indexed: every byte, name and mode came back.
      expect(createTreeScanner({ workspace: out, store, excluded: () => false }).scan().tree).toBe(line.tree);
    }
  }, 120_000);
});
