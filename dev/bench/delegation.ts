import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractiveSummary } from 'rein/actors';
import type { ModelInput } from 'rein/machines';
import { rulesSchema } from 'rein/rules';
import { startRun } from 'rein/run';
import type { AnyTool } from 'rein/tools';
import { fromPromise } from 'xstate';
import { z } from 'zod';
import { benchRules } from './bench-rules.js';
import { instantModel } from './instant-model.js';

/** A tool that costs nothing, so the figures are the harness's. */
const noteTool: AnyTool = {
  name: 'note',
  description: 'Record a note.',
  parameters: z.object({ text: z.string() }).strict(),
  async execute(args) {
    return { content: `noted: ${(args as { text: string }).text}`, ok: true, effect: { kind: 'none' } };
  },
};

/** What one child costs, measured in one run whose parent delegates `children` tasks of `steps` steps each. */
interface ChildCost {
  /** From the parent's model returning the delegate call to the first child's first model request, in ms. */
  spawnMs: number;
  /** Mean ms per step inside the first child, from its first model call to its last. */
  childMsPerStep: number;
  /** Heap the finished run still holds per child, after a full GC, in MB. */
  heapMbPerChild: number;
}

/** A parent model that delegates once and then finishes. */
function delegatingModel(tasks: Array<{ agent: string; task: string }>, delegatedAt: bigint[]) {
  return fromPromise(async ({ input }: { input: ModelInput }) => {
    const name = input.step === 0 ? 'delegate' : 'finish';
    if (input.step === 0) delegatedAt.push(process.hrtime.bigint());
    const args = input.step === 0 ? { tasks } : { summary: 'done' };
    return {
      message: {
        role: 'assistant' as const,
        content: null,
        tool_calls: [{ id: `call_${input.step + 1}_0`, type: 'function' as const, function: { name, arguments: JSON.stringify(args) } }],
      },
      usage: { promptTokens: 1000, completionTokens: 20, cachedTokens: 900 },
    };
  });
}

/**
 * One run: a parent that delegates `children` tasks (run one at a time) to an agent whose every step calls a free
 * tool until its step cap, `steps`; an instant model throughout.
 */
export async function measureChildCost(steps: number, children: number): Promise<ChildCost> {
  const workspace = mkdtempSync(join(tmpdir(), 'rein-bench-ws-'));
  const runDir = mkdtempSync(join(tmpdir(), 'rein-bench-run-'));
  const base = benchRules(steps * children * 2 + 10, 'note');
  const rules = rulesSchema.parse({
    ...base,
    agents: { worker: { description: 'notes', tools: ['note'], budget: { share: 1, maxSteps: steps }, rules: { verification: { gate: false } } } },
    delegation: { maxParallel: 1 },
    verification: { ...base.verification, gate: false },
  });
  const delegatedAt: bigint[] = [];
  const childCalls: bigint[] = [];
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const tasks = Array.from({ length: children }, (_, index) => ({ agent: 'worker', task: `Part ${index}` }));
  const model = (createActor: () => unknown, name: string) => ({
    name,
    description: 'benchmark',
    createActor: createActor as never,
    summarize: extractiveSummary,
  });
  const handle = await startRun({
    workspace,
    task: 'Benchmark task.',
    testCmd: 'true',
    rules,
    runDir,
    fsync: false,
    // As in the run it is compared with: no state saved (the children inherit it).
    saveState: false,
    tools: [noteTool],
    model: model(() => delegatingModel(tasks, delegatedAt), 'instant-parent'),
    agentModels: { worker: model(() => instantModel('note', (step) => ({ text: `step ${step}` }), childCalls), 'instant-child') },
  });
  const output = await handle.done;
  global.gc?.();
  const retained = process.memoryUsage().heapUsed - heapBefore;
  rmSync(workspace, { recursive: true, force: true });
  rmSync(runDir, { recursive: true, force: true });
  const worker = output.agents?.find((entry) => entry.agent === 'worker');
  if (output.status !== 'done' || worker?.steps !== steps * children)
    throw new Error(`benchmark run went wrong: ${output.status}, worker steps ${worker?.steps} (${output.reason})`);
  const first = childCalls.slice(0, steps);
  return {
    spawnMs: Number(childCalls[0]! - delegatedAt[0]!) / 1e6,
    childMsPerStep: Number(first.at(-1)! - first[0]!) / 1e6 / (steps - 1),
    heapMbPerChild: retained / children / 1024 / 1024,
  };
}
