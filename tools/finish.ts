import { z } from 'zod';
import type { ToolCall } from '../context/messages.js';
import { parseToolArguments } from './tool-arguments.js';
import type { AnyTool, Tool } from './types.js';

const parameters = z
  .object({
    summary: z.string().describe('One paragraph: what was changed and how it was verified.'),
  })
  .strict();

/**
 * `finish`: asks to end the run. It only reports the request; the machine's
 * verification gate decides whether the run may end (seed component 6).
 *
 * @example await finishTool.execute({ summary: 'Fixed the off-by-one in mean(); pytest -q passes.' }, ctx)
 */
export const finishTool: Tool<typeof parameters> = {
  name: 'finish',
  description: 'Declare the task complete, with a one-paragraph summary.',
  parameters,
  async execute({ summary }) {
    return { content: 'Finish requested.', ok: true, effect: { kind: 'finish', summary } };
  },
};

/**
 * Where a turn's calls stop for the gate: the first `finish` call whose
 * arguments pass the finish tool's strict schema (its position and summary),
 * or null. Calls before it run as tools; a malformed finish is a call like
 * any other (it gets a tool error). The tool runner, the test kit's probe and
 * the coverage witnesses all decide it here.
 *
 * @example firstValidFinish(calls)?.index // 1 for [run, finish, read]
 */
// The finish tool with its argument type erased, as the registry stores every tool.
export function firstValidFinish(calls: readonly ToolCall[], tool: AnyTool = finishTool as unknown as AnyTool): { index: number; summary: string } | null {
  for (const [index, call] of calls.entries()) {
    if (call.function.name !== 'finish') continue;
    const parsed = parseToolArguments(tool, call.function.arguments);
    if (parsed.ok) return { index, summary: String((parsed.args as { summary?: unknown }).summary ?? '') };
  }
  return null;
}
