import { z } from 'zod';
import { stableStringify } from '../lib/stable-json.js';
import type { AnyTool } from './types.js';

/** One entry of the OpenAI chat `tools` array. */
export interface FunctionToolSchema {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/**
 * The OpenAI `tools` array for a registry, with parameters generated from the
 * zod schemas (input side, so defaulted fields are optional). The objects'
 * keys are sorted at every depth, so even a plain `JSON.stringify` of them
 * (as the SDK does) is byte-identical across calls and the prompt cache holds.
 *
 * @example client.chat.completions.create({ model, messages, tools: toolSchemas(defaultTools) })
 */
export function toolSchemas(tools: readonly AnyTool[]): FunctionToolSchema[] {
  return JSON.parse(toolSchemasJson(tools)) as FunctionToolSchema[];
}

/** `toolSchemas` as a stable JSON string (sorted keys), for hashing and traces. */
export function toolSchemasJson(tools: readonly AnyTool[]): string {
  return stableStringify(
    tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: parametersSchema(tool) },
    })),
  );
}

function parametersSchema(tool: AnyTool): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(tool.parameters, { io: 'input' }) as Record<string, unknown>;
  return withoutSafeIntegerBounds(schema) as Record<string, unknown>;
}

/** zod writes ±2^53-1 bounds on every `.int()`; they only cost tokens. */
function withoutSafeIntegerBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutSafeIntegerBounds);
  if (node === null || typeof node !== 'object') return node;
  const entries = Object.entries(node).filter(
    ([key, value]) => !((key === 'minimum' || key === 'maximum') && Math.abs(value as number) === Number.MAX_SAFE_INTEGER),
  );
  return Object.fromEntries(entries.map(([key, value]) => [key, withoutSafeIntegerBounds(value)]));
}
