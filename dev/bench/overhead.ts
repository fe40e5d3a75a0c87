import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractiveSummary } from 'rein/actors';
import { startRun } from 'rein/run';
import type { AnyTool } from 'rein/tools';
import { z } from 'zod';
import { benchRules } from './bench-rules.js';
import { instantModel } from './instant-model.js';

/** A tool that costs nothing: the benchmark should see only the harness. */
const noteTool: AnyTool = {
  name: 'note',
  description: 'Record a note.',
  parameters: z.object({ text: z.string() }).strict(),
  async execute(args) {
    return { content: `noted: ${(args as { text: string }).text}`, ok: true, effect: { kind: 'none' } };
  },
};

export interface OverheadResult {
  steps: number;
  /** Mean from the first model call to the last: run start-up left out. */
  msPerStep: number;
  /** Mean over the last tenth of the run, when the record is longest. */
  msPerStepAtEnd: number;
  /** Mean per step in a window of 100 steps around record length N, for N in `windows`. */
  atLength: Record<number, number>;
  /** Heap the finished run still holds, per step (the record is on disk; what is held is bounded by the window). */
  heapBytesPerStep: number;
  /** Highest heap above the start during the run, garbage included, in MB. */
  peakHeapMb: number;
  traceLines: number;
}

/**
 * One run of `steps` model calls with an instant model and a free tool,
 * timing the harness: machine transitions, view construction, trace and
 * record writing, state saving (without fsync unless asked) and token estimates.
 */
export async function measureOverhead(
  steps: number,
  options: { fsync?: boolean; saveState?: boolean; windows?: number[]; onTraceLine?: (line: string) => void } = {},
): Promise<OverheadResult> {
  const workspace = mkdtempSync(join(tmpdir(), 'rein-bench-ws-'));
  const runDir = mkdtempSync(join(tmpdir(), 'rein-bench-run-'));
  const rules = benchRules(steps, 'note');
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const callTimes: bigint[] = [];
  const heap = { peak: heapBefore };
  const handle = await startRun({
    workspace,
    task: 'Benchmark task.',
    testCmd: 'true',
    rules,
    runDir,
    fsync: options.fsync ?? false,
    saveState: options.saveState ?? false,
    tools: [noteTool],
    ...(options.onTraceLine ? { onTraceLine: options.onTraceLine } : {}),
    model: {
      name: 'instant',
      description: 'benchmark',
      createActor: () => instantModel('note', (step) => ({ text: `step ${step}` }), callTimes, heap),
      summarize: extractiveSummary,
    },
  });
  const output = await handle.done;
  // Memory the run still holds (its record, journal and machine) with the run object alive, after a full GC.
  global.gc?.();
  const retained = process.memoryUsage().heapUsed - heapBefore;
  if (!handle.actor) throw new Error('unreachable');
  const span = (from: number, to: number) => Number(callTimes[to]! - callTimes[from]!) / 1e6 / (to - from);
  const last = callTimes.length - 1;
  if (output.steps !== steps) throw new Error(`benchmark run ended early: ${output.status} after ${output.steps} steps (${output.reason})`);
  const traceLines = (await import('node:fs')).readFileSync(handle.tracePath, 'utf8').split('\n').length - 1;
  rmSync(workspace, { recursive: true, force: true });
  rmSync(runDir, { recursive: true, force: true });
  const atLength = Object.fromEntries(
    (options.windows ?? []).map((length) => {
      const from = Math.max(0, Math.min(length - 50, last - 100));
      return [length, span(from, Math.min(from + 100, last))];
    }),
  );
  return {
    steps,
    msPerStep: span(0, last),
    msPerStepAtEnd: span(Math.floor(last * 0.9), last),
    atLength,
    heapBytesPerStep: retained / steps,
    peakHeapMb: (heap.peak - heapBefore) / 1e6,
    traceLines,
  };
}
