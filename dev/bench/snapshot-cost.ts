import { lstatSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createTreeScanner, openObjectStore, snapshotExclusion } from 'rein/lib';
import { rulesSchema } from 'rein/rules';

/** One row: the cost of a step's snapshot when that many files changed in it. */
interface SnapshotCostRow {
  changed: number;
  steps: number;
  /** What the step's end costs the run's thread: starting the scan (its slices run later). */
  askMs: number;
  /** The longest the thread was held by one slice of the scan (the most a request or a reply chunk waits). */
  pauseMs: number;
  /** From the step's end to the scan's result: what the next command waits when the model's reply comes at once. */
  medianMs: number;
  p90Ms: number;
  /** The same scan run blocking, through (as a run took it before the scan ran in slices). */
  blockingMs: number;
  medianBytes: number;
}

/** Deterministic bytes that do not repeat between files (so the store cannot share them). */
function bytesFor(seed: number, size: number): Buffer {
  const out = Buffer.alloc(size);
  let state = (seed * 2654435761) >>> 0 || 1;
  for (let at = 0; at < size; at += 4) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out.writeUInt32LE(state >>> 0, Math.min(at, size - 4));
  }
  return out;
}

/** A repository-like tree: `files` files in folders of 50, sizes from 1 KiB to 40 KiB (about `files` × 10 KiB in all). */
function makeWorkspace(root: string, files: number): { paths: string[]; sizes: number[]; bytes: number } {
  const paths: string[] = [];
  const sizes: number[] = [];
  let bytes = 0;
  for (let index = 0; index < files; index++) {
    const dir = join(root, `pkg${Math.floor(index / 500)}`, `mod${Math.floor(index / 50) % 10}`);
    if (index % 50 === 0) mkdirSync(dir, { recursive: true });
    // Mostly small files and a few large ones, as in a source tree.
    const size = index % 20 === 0 ? 40 * 1024 + (index % 7) * 1024 : 1024 + ((index * 37) % 12) * 1024;
    const path = join(dir, `file${index}.txt`);
    writeFileSync(path, bytesFor(index + 1, size));
    paths.push(path);
    sizes.push(size);
    bytes += size;
  }
  return { paths, sizes, bytes };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const p90 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.9)]!;

/**
 * The per-step cost of the run's workspace snapshot (the same scanner and store a run uses, default exclusions): a
 * first full snapshot, then steps in which 0, 1, 10 and 100 files were rewritten with new bytes, each scanned in slices
 * as a run does (timed at the step's end, its longest slice, to its result) and, for comparison, blocking.
 *
 * @example const { rows } = await measureSnapshotCost({ files: 5000, stepsPerCase: 15 });
 */
export async function measureSnapshotCost(options: { files: number; stepsPerCase: number }) {
  const base = join(tmpdir(), `rein-bench-snapshots-${process.pid}`);
  rmSync(base, { recursive: true, force: true });
  const workspace = join(base, 'ws');
  try {
    const tree = makeWorkspace(workspace, options.files);
    const store = openObjectStore(join(base, 'store'));
    const excluded = snapshotExclusion(rulesSchema.parse({}).snapshots.exclude);
    const scanner = createTreeScanner({ workspace, store, excluded });
    let started = performance.now();
    scanner.scan();
    const first = { ms: performance.now() - started, bytes: store.bytesWritten() };
    // A second scan with nothing changed: files written just now are re-read once (they are too recent to trust their timestamps).
    scanner.scan();
    const rows: SnapshotCostRow[] = [];
    let seed = 1_000_000;
    const change = (changed: number, step: number) => {
      for (let index = 0; index < changed; index++) {
        const pick = (step * 7919 + index * 104729) % tree.paths.length;
        writeFileSync(tree.paths[pick]!, bytesFor(seed++, tree.sizes[pick]!));
      }
    };
    for (const changed of [0, 1, 10, 100]) {
      const steps = { ask: [] as number[], pause: [] as number[], done: [] as number[], blocking: [] as number[], bytes: [] as number[] };
      for (let step = 0; step < options.stepsPerCase; step++) {
        change(changed, step);
        const before = store.bytesWritten();
        const watch = watchPauses();
        started = performance.now();
        const scanned = scanner.scanInSlices();
        steps.ask.push(performance.now() - started);
        await scanned;
        steps.done.push(performance.now() - started);
        steps.pause.push(watch.stop());
        steps.bytes.push(store.bytesWritten() - before);
        // The same change scanned blocking, for the comparison (its own files, so it reads as much).
        change(changed, step + options.stepsPerCase);
        started = performance.now();
        scanner.scan();
        steps.blocking.push(performance.now() - started);
      }
      rows.push({
        changed,
        steps: options.stepsPerCase,
        askMs: median(steps.ask),
        pauseMs: median(steps.pause),
        medianMs: median(steps.done),
        p90Ms: p90(steps.done),
        blockingMs: median(steps.blocking),
        medianBytes: median(steps.bytes),
      });
    }
    // The floor of any scan that trusts timestamps: a readdir and an lstat per entry, nothing stored.
    const floor: number[] = [];
    for (let step = 0; step < options.stepsPerCase; step++) {
      started = performance.now();
      walkAndStat(workspace);
      floor.push(performance.now() - started);
    }
    return { files: options.files, treeBytes: tree.bytes, first, rows, floorMs: median(floor) };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

function walkAndStat(dir: string): void {
  for (const name of readdirSync(dir)) {
    const path = `${dir}/${name}`;
    if (lstatSync(path).isDirectory()) walkAndStat(path);
  }
}

/** Measures the longest gap between turns of the event loop until stopped: the longest the thread was held. */
function watchPauses(): { stop: () => number } {
  let last = performance.now();
  let longest = 0;
  let on = true;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    stop: () => {
      on = false;
      return longest;
    },
  };
}
