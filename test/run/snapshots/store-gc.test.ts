import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotExclusion } from '../../../lib/snapshots/exclusion.js';
import { openObjectStore } from '../../../lib/snapshots/object-store.js';
import { flattenTree } from '../../../lib/snapshots/tree-format.js';
import { createTreeScanner } from '../../../lib/snapshots/tree-scan.js';
import { appendSnapshotIndex, readSnapshotIndex } from '../../../run/record/snapshot-index.js';
import { registerSnapshotRun } from '../../../run/snapshots/snapshot-runs.js';
import { collectSnapshotGarbage } from '../../../run/snapshots/store-gc.js';
import { call, makeTempDir, reply, runScripted } from '../../../testing/index.js';
import { repoRoot } from '../../helpers/cli.js';
import { waitUntil } from '../../helpers/wait.js';

let previousState: string | undefined;
beforeAll(() => {
  previousState = process.env.XDG_STATE_HOME;
  process.env.XDG_STATE_HOME = makeTempDir('rein-test-state-');
});
afterAll(() => {
  if (previousState === undefined) delete process.env.XDG_STATE_HOME;
  else process.env.XDG_STATE_HOME = previousState;
});

const idOf = (text: string) => createHash('sha256').update(text).digest('hex');
const stored = (store: string, text: string) => existsSync(join(store, 'objects', idOf(text).slice(0, 2), idOf(text).slice(2)));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every object each snapshot line of the run names can be read back, whole. */
function restorable(runDir: string): void {
  for (const line of readSnapshotIndex(runDir)) {
    const store = openObjectStore(line.store);
    if (line.chart) store.get(line.chart);
    for (const entry of flattenTree(store, line.tree).values()) if (entry.type === 'file') store.get(entry.id);
  }
}

/** A run that writes `content` into `file` of a workspace that starts with `files`, its snapshots in `store`. */
const runIn = (store: string, files: Record<string, string>, file: string, content: string) =>
  runScripted({
    files,
    snapshotStore: store,
    testCmd: 'true',
    script: [reply(call('run', { command: `printf '${content}' > ${file}` })), reply(call('finish', { summary: 'done' }))],
  });

describe('rein snapshots gc', () => {
  it('removes what only gone or expired runs named, keeps what a kept run names, and leaves recent objects alone', async () => {
    const store = makeTempDir('rein-test-store-');
    const a = await runIn(store, { 'shared.txt': 'shared by both', 'a.txt': 'a at start' }, 'a.txt', 'a after');
    const b = await runIn(store, { 'shared.txt': 'shared by both', 'b.txt': 'b only' }, 'b.txt', 'b after');
    rmSync(b.runDir, { recursive: true });
    const later = Date.now() + 2 * 3_600_000;

    // Just written: younger than the grace period, so nothing goes, whatever names it.
    const now = collectSnapshotGarbage({ store, keepDays: 30, dryRun: true });
    expect(now.removed).toBe(0);
    expect(now.young).toBeGreaterThan(0);
    expect(stored(store, 'b only')).toBe(true);

    const dry = collectSnapshotGarbage({ store, keepDays: 30, now: later, dryRun: true });
    expect(dry.dropped).toEqual([{ runDir: b.runDir, why: 'gone' }]);
    expect(dry.removed).toBeGreaterThan(0);
    expect(stored(store, 'b only')).toBe(true);

    const report = collectSnapshotGarbage({ store, keepDays: 30, now: later });
    expect(report.kept).toEqual([a.runDir]);
    expect(report.dropped).toEqual([{ runDir: b.runDir, why: 'gone' }]);
    expect(report.removed).toBe(dry.removed);
    expect(stored(store, 'b only')).toBe(false);
    expect(stored(store, 'b after')).toBe(false);
    expect(stored(store, 'shared by both')).toBe(true);
    expect(stored(store, 'a at start')).toBe(true);
    expect(stored(store, 'a after')).toBe(true);
    restorable(a.runDir);
    // The gone run is off the list: the next collection does not look for it.
    expect(collectSnapshotGarbage({ store, keepDays: 30, now: later }).dropped).toEqual([]);

    // Past the retention, a run that has ended is dropped and its objects go too.
    const expired = collectSnapshotGarbage({ store, keepDays: 30, now: Date.now() + 40 * 86_400_000 });
    expect(expired.dropped).toEqual([{ runDir: a.runDir, why: 'expired' }]);
    expect(stored(store, 'a after')).toBe(false);
    expect(readdirSync(join(store, 'objects')).flatMap((prefix) => readdirSync(join(store, 'objects', prefix)))).toEqual([]);
  }, 60_000);

  it('keeps an old object that a run under way reuses while the collection runs', async () => {
    const store = makeTempDir('rein-test-store-');
    const kept = await runIn(store, { 'a.txt': 'a' }, 'a.txt', 'a after');
    const gone = await runIn(store, { 'old.txt': 'only the gone run had this' }, 'old.txt', 'gone after');
    rmSync(gone.runDir, { recursive: true });
    await sleep(300);
    // A run under way: its workspace holds the gone run's file; its scan finds the object in the store and reuses it.
    const workspace = makeTempDir('rein-test-ws-');
    writeFileSync(join(workspace, 'old.txt'), 'only the gone run had this');
    const runDir = makeTempDir('rein-test-run-');
    registerSnapshotRun(runDir, store);
    const report = collectSnapshotGarbage({
      store,
      keepDays: 30,
      graceMs: 200,
      onMarked: () => {
        const { tree } = createTreeScanner({ workspace, store: openObjectStore(store), excluded: snapshotExclusion([]) }).scan();
        appendSnapshotIndex(runDir, { step: 0, store, tree, at: new Date().toISOString() });
      },
    });
    expect(report.dropped).toEqual([{ runDir: gone.runDir, why: 'gone' }]);
    expect(stored(store, 'gone after')).toBe(false);
    expect(stored(store, 'only the gone run had this')).toBe(true);
    restorable(runDir);
    restorable(kept.runDir);
  }, 60_000);

  it('never breaks a snapshot of a process that keeps writing to the store while collections run', async () => {
    const store = makeTempDir('rein-test-store-');
    const gone = await runIn(store, { 'g.txt': 'garbage to collect' }, 'g.txt', 'more garbage');
    rmSync(gone.runDir, { recursive: true });
    const base = makeTempDir('rein-test-gc-writer-');
    const workspace = join(base, 'ws');
    const runDir = join(base, 'run');
    mkdirSync(runDir, { recursive: true });
    for (let dir = 0; dir < 4; dir++) {
      mkdirSync(join(workspace, `d${dir}`), { recursive: true });
      for (let file = 0; file < 100; file++) writeFileSync(join(workspace, `d${dir}`, `f${file}`), `start ${dir} ${file}\n`);
    }
    const script = join(base, 'writer.mjs');
    writeFileSync(
      script,
      `import { writeFileSync } from 'node:fs';
import { openObjectStore } from '${repoRoot}/dist/lib/snapshots/object-store.js';
import { createTreeScanner } from '${repoRoot}/dist/lib/snapshots/tree-scan.js';
import { appendSnapshotIndex } from '${repoRoot}/dist/run/record/snapshot-index.js';
import { registerSnapshotRun } from '${repoRoot}/dist/run/snapshots/snapshot-runs.js';
const [workspace, store, runDir] = process.argv.slice(2);
registerSnapshotRun(runDir, store);
const scanner = createTreeScanner({ workspace, store: openObjectStore(store), excluded: () => false });
for (let step = 0; ; step++) {
  // Each step changes files, and half the time puts an earlier content back (an object the store may hold unnamed).
  for (let file = 0; file < 20; file++) writeFileSync(workspace + '/d' + (file % 4) + '/f' + ((step * 7 + file) % 100), step % 2 ? 'start ' + (file % 4) + ' ' + file + '\\n' : 'step ' + step + ' ' + file + '\\n');
  const { tree } = scanner.scan();
  appendSnapshotIndex(runDir, { step, store, tree, at: new Date().toISOString() });
  await new Promise((resolve) => setTimeout(resolve, 5));
}
`,
    );
    const child = spawn(process.execPath, [script, workspace, store, runDir], { stdio: 'ignore', env: process.env });
    try {
      await waitUntil(() => readSnapshotIndex(runDir).length > 3, 'the writer to index steps', 30_000);
      let removed = 0;
      // A grace of a second (an hour by default): longer than any one scan of the writer takes, even on a loaded machine.
      for (let round = 0; round < 15; round++) {
        removed += collectSnapshotGarbage({ store, keepDays: 30, graceMs: 1000 }).removed;
        await sleep(200);
      }
      expect(removed).toBeGreaterThan(0);
      expect(stored(store, 'garbage to collect')).toBe(false);
    } finally {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    expect(readSnapshotIndex(runDir).length).toBeGreaterThan(10);
    restorable(runDir);
  }, 90_000);
});
