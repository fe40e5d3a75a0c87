import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractiveSummary } from 'rein/actors';
import type { ChatMessage } from 'rein/context';
import { startRun } from 'rein/run';
import type { AnyTool, ToolOutcome } from 'rein/tools';
import { z } from 'zod';
import { benchRules } from './bench-rules.js';
import { instantModel } from './instant-model.js';

/** What one run in a process of its own used. */
export interface MemoryFigures {
  steps: number;
  /** The process's peak resident set, start-up included (`process.resourceUsage().maxRSS`). */
  peakRssMb: number;
  /** Highest heap seen during the run (sampled every 50 model calls). */
  peakHeapMb: number;
  /** Heap still used after the run and a full collection, with the run's objects alive. */
  retainedHeapMb: number;
}

/** A tool whose every result is new and about `chars` long, like a test run's output. */
function outputTool(chars: number, keep: ToolOutcome[] | null): AnyTool {
  return {
    name: 'probe',
    description: 'Run a probe.',
    parameters: z.object({ n: z.number() }).strict(),
    async execute(args) {
      const n = (args as { n: number }).n;
      const body = Array.from({ length: Math.ceil(chars / 60) }, (_, line) => `probe ${n} line ${line}: assert parse(case_${line}) == expected`).join('\n');
      const outcome: ToolOutcome = { content: `exit=1\n${body}`.slice(0, chars), ok: true, effect: { kind: 'none' } };
      keep?.push(outcome);
      return outcome;
    },
  };
}

/**
 * One run of `steps` steps of the real harness with an instant model and
 * ~4,000-character tool results, in this process. `everything` keeps every
 * record message and every tool result in memory as well, as rein did
 * before (its record's message array and its call journal's map).
 */
export async function runForMemory(steps: number, options: { everything: boolean; resultChars?: number }): Promise<MemoryFigures> {
  const workspace = mkdtempSync(join(tmpdir(), 'rein-bench-memory-ws-'));
  const runDir = mkdtempSync(join(tmpdir(), 'rein-bench-memory-run-'));
  const rules = benchRules(steps, 'probe', { stall: false });
  const messages: ChatMessage[] | null = options.everything ? [] : null;
  const results: ToolOutcome[] | null = options.everything ? [] : null;
  const heap = { peak: 0 };
  const handle = await startRun({
    workspace,
    task: 'Benchmark task.',
    testCmd: 'true',
    rules,
    runDir,
    fsync: false,
    saveState: false,
    tools: [outputTool(options.resultChars ?? 4000, results)],
    model: {
      name: 'instant',
      description: 'benchmark',
      createActor: () => instantModel('probe', (step) => ({ n: step }), [], heap),
      summarize: extractiveSummary,
    },
  });
  if (messages)
    handle.actor.on('record.append', (event) => {
      messages.push(...event.messages);
    });
  const output = await handle.done;
  if (output.steps !== steps) throw new Error(`memory run ended early: ${output.status} after ${output.steps} steps (${output.reason})`);
  global.gc?.();
  const retained = process.memoryUsage().heapUsed;
  // Keeps what the run holds reachable until it is measured.
  if ((messages?.length ?? 0) + (results?.length ?? 0) < 0 || !handle.actor) throw new Error('unreachable');
  rmSync(workspace, { recursive: true, force: true });
  rmSync(runDir, { recursive: true, force: true });
  return { steps, peakRssMb: process.resourceUsage().maxRSS / 1024, peakHeapMb: heap.peak / 1e6, retainedHeapMb: retained / 1e6 };
}
