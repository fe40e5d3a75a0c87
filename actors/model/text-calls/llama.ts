import { callsFromJson, jsonEnd } from './json-text.js';
import type { ShapeParser, TextCall } from './types.js';

const PYTHON_TAG = '<|python_tag|>';
const END_TOKENS = /<\|(?:eom_id|eot_id)\|>/;

/**
 * Llama 3.x: `<|python_tag|>{"name": …, "parameters": …}` (several joined by
 * `;`), or a reply that is nothing but such JSON objects. JSON inside prose
 * is not a call: the bare form must be the whole reply.
 */
export const parseLlama: ShapeParser = (content, skip) => {
  const tag = content.indexOf(PYTHON_TAG);
  if (tag !== -1 && !skip(tag)) {
    const bodyStart = tag + PYTHON_TAG.length;
    const stop = content.slice(bodyStart).search(END_TOKENS);
    const end = stop === -1 ? content.length : bodyStart + stop + content.slice(bodyStart + stop).match(END_TOKENS)![0].length;
    const calls = joinedCalls(content.slice(bodyStart, stop === -1 ? content.length : bodyStart + stop));
    return calls ? [{ shape: 'llama', start: tag, end, calls }] : [];
  }
  const calls = joinedCalls(content);
  return calls ? [{ shape: 'llama', start: 0, end: content.length, calls }] : [];
};

/** Calls when the whole text is JSON call objects, one after another (separated by `;`, commas or white space). */
function joinedCalls(text: string): TextCall[] | null {
  const calls: TextCall[] = [];
  let at = 0;
  for (;;) {
    while (at < text.length && /[\s;,]/.test(text[at]!)) at++;
    if (at >= text.length) return calls.length > 0 ? calls : null;
    if (text[at] !== '{' && text[at] !== '[') return null;
    const end = jsonEnd(text, at);
    const found = callsFromJson(text.slice(at, end));
    if (!found) return null;
    calls.push(...found);
    at = end;
  }
}
