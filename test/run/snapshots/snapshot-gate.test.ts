import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openObjectStore } from '../../../lib/snapshots/object-store.js';
import { flattenTree } from '../../../lib/snapshots/tree-format.js';
import { createTreeScanner } from '../../../lib/snapshots/tree-scan.js';
import { readSnapshotIndex } from '../../../run/record/snapshot-index.js';
import { call, makeTempDir, reply, runScripted } from '../../../testing/index.js';

let previousState: string | undefined;
beforeAll(() => {
  previousState = process.env.XDG_STATE_HOME;
  process.env.XDG_STATE_HOME = makeTempDir('rein-test-state-');
});
afterAll(() => {
  if (previousState === undefined) delete process.env.XDG_STATE_HOME;
  else process.env.XDG_STATE_HOME = previousState;
});

/** A workspace whose scan takes many slices: 3,000 files in 30 folders. */
function bigWorkspace(): string {
  const workspace = makeTempDir('rein-test-ws-');
  for (let dir = 0; dir < 30; dir++) {
    mkdirSync(join(workspace, `d${String(dir).padStart(2, '0')}`));
    for (let file = 0; file < 100; file++) writeFileSync(join(workspace, `d${String(dir).padStart(2, '0')}`, `f${file}`), `${dir} ${file}\n`);
  }
  return workspace;
}

describe('a step snapshot scanned while the model answers', () => {
  it('holds the workspace of its step: the next command waits for it, even when the reply comes at once', async () => {
    const workspace = bigWorkspace();
    // Each step's command leaves a file the scan reaches last (after every d* folder), and changes one it reaches first.
    const run = await runScripted({
      workspace,
      script: [
        reply(call('run', { command: 'echo one > zz-step1; echo one > d00/f0' })),
        reply(call('run', { command: 'echo two > zz-step2; echo two > d00/f0' })),
        reply(call('finish', { summary: 'done' })),
      ],
      testCmd: 'true',
    });
    expect(run.output.steps).toBeGreaterThanOrEqual(3);
    const index = readSnapshotIndex(run.runDir);
    const store = openObjectStore(index[0]!.store);
    const files = (step: number) => {
      const tree = flattenTree(store, index.find((line) => line.step === step)!.tree);
      return { names: [...tree.keys()].filter((path) => path.startsWith('zz-')), first: tree.get('d00/f0') };
    };
    const content = (entry: ReturnType<typeof files>['first']) => (entry?.type === 'file' ? store.get(entry.id).toString() : null);
    expect(files(0).names).toEqual([]);
    expect(content(files(0).first)).toBe('0 0\n');
    expect(files(1).names).toEqual(['zz-step1']);
    expect(content(files(1).first)).toBe('one\n');
    expect(files(2).names).toEqual(['zz-step1', 'zz-step2']);
    expect(content(files(2).first)).toBe('two\n');
    // The scan of a step ran in slices, not at once: it took longer than the step's end did.
    expect(index.every((line) => (line.doneMs ?? 0) >= line.ms)).toBe(true);
  });

  it('scans in slices to the tree a blocking scan gives, and lets the thread run between slices', async () => {
    const workspace = bigWorkspace();
    const store = openObjectStore(makeTempDir('rein-test-store-'));
    const sliced = createTreeScanner({ workspace, store, excluded: () => false });
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    const tree = (await sliced.scanInSlices(1)).tree;
    clearInterval(ticking);
    expect(tree).toBe(createTreeScanner({ workspace, store, excluded: () => false }).scan().tree);
    expect(turns).toBeGreaterThan(1);
    writeFileSync(join(workspace, 'd29', 'f99'), 'changed\n');
    expect((await sliced.scanInSlices()).tree).toBe(createTreeScanner({ workspace, store, excluded: () => false }).scan().tree);
  });
});
