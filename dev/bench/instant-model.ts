import type { ModelInput, ModelReply } from 'rein/machines';
import { fromPromise } from 'xstate';

/**
 * A model that answers at once and does no work on the prompt, so a
 * benchmark measures only the harness. Each reply calls `tool` with a fresh
 * argument (no stall fires) and reports fixed usage. `callTimes` receives
 * the time of every call, so a benchmark can leave run start-up out;
 * `heap.peak` the highest heap seen (sampled every 50 calls).
 */
export function instantModel(tool: string, argsFor: (step: number) => unknown, callTimes: bigint[] = [], heap: { peak: number } = { peak: 0 }) {
  return fromPromise<ModelReply, ModelInput>(async ({ input }) => {
    callTimes.push(process.hrtime.bigint());
    if (input.step % 50 === 0) heap.peak = Math.max(heap.peak, process.memoryUsage().heapUsed);
    return {
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: `call_${input.step + 1}_0`, type: 'function', function: { name: tool, arguments: JSON.stringify(argsFor(input.step)) } }],
      },
      usage: { promptTokens: 1000, completionTokens: 20, cachedTokens: 900 },
    };
  });
}
