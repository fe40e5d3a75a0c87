import { callsFromJson, jsonEnd, parseJsonLeniently } from './json-text.js';
import type { FoundBlock, ShapeParser, TextCall } from './types.js';

const MARKER = '[TOOL_CALLS]';
const NAMED = /^\s*([\w.-]{1,80})(?:\[CALL_ID\][\w-]*)?\[ARGS\]\s*/;

/**
 * Mistral's `[TOOL_CALLS][{"name": …, "arguments": …}, …]`, and the newer
 * templates' `[TOOL_CALLS]name[ARGS]{…}` (repeated for several calls).
 */
export const parseMistral: ShapeParser = (content, skip) => {
  const blocks: FoundBlock[] = [];
  for (let at = content.indexOf(MARKER); at !== -1; at = content.indexOf(MARKER, at + 1)) {
    if (skip(at)) continue;
    const after = at + MARKER.length;
    const named = NAMED.exec(content.slice(after));
    const found = named ? namedCall(content, after, named) : listCalls(content, after);
    if (found) {
      blocks.push({ shape: 'mistral', start: at, end: found.end, calls: found.calls });
      at = found.end - 1;
    }
  }
  return blocks;
};

function namedCall(content: string, after: number, named: RegExpExecArray): { end: number; calls: TextCall[] } | null {
  const argsStart = after + named[0].length;
  if (content[argsStart] !== '{') return null;
  const end = jsonEnd(content, argsStart);
  const text = content.slice(argsStart, end);
  const parsed = parseJsonLeniently(text);
  const call: TextCall = !parsed.ok
    ? { name: named[1]!, arguments: text, repairedFrom: text }
    : parsed.repaired
      ? { name: named[1]!, arguments: parsed.value, repairedFrom: text }
      : { name: named[1]!, arguments: parsed.value };
  return { end, calls: [call] };
}

function listCalls(content: string, after: number): { end: number; calls: TextCall[] } | null {
  const start = content.slice(after).search(/\S/) + after;
  if (content[start] !== '[' && content[start] !== '{') return null;
  const end = jsonEnd(content, start);
  const calls = callsFromJson(content.slice(start, end));
  return calls ? { end, calls } : null;
}
