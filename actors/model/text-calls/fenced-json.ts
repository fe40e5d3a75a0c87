import type { CodeSpan } from './code-spans.js';
import { callsFromJson } from './json-text.js';
import type { FoundBlock } from './types.js';

/** Info strings of a fence that may hold a call; a fence in another language is quoted code. */
const CALL_FENCES = new Set(['', 'json', 'json5', 'jsonc', 'tool_call', 'tool_code', 'tool']);

/**
 * A fenced block that holds exactly a call object (`{"name", "arguments"}`) or
 * a list of them, and nothing else: a JSON file with other keys is data.
 */
export function parseFencedJson(content: string, spans: readonly CodeSpan[]): FoundBlock[] {
  const blocks: FoundBlock[] = [];
  for (const span of spans) {
    if (!span.fence || !CALL_FENCES.has(span.fence.info)) continue;
    const calls = callsFromJson(content.slice(span.fence.bodyStart, span.fence.bodyEnd));
    if (calls) blocks.push({ shape: 'fenced-json', start: span.start, end: span.end, calls });
  }
  return blocks;
}
