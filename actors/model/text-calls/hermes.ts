import { callsFromJson, jsonEnd } from './json-text.js';
import type { FoundBlock, ShapeParser, TextCall } from './types.js';

const OPEN = /<tool_call>/g;
const CLOSE = '</tool_call>';

/**
 * Hermes / Qwen blocks: `<tool_call>{"name": …, "arguments": …}</tool_call>`,
 * one call (or a list) per block, any number of blocks. A block cut off
 * before its closing tag (max_tokens) still counts up to the end of its JSON.
 */
export const parseHermes: ShapeParser = (content, skip) => {
  const blocks: FoundBlock[] = [];
  OPEN.lastIndex = 0;
  for (let open = OPEN.exec(content); open; open = OPEN.exec(content)) {
    if (skip(open.index)) continue;
    const bodyStart = open.index + open[0].length;
    const close = content.indexOf(CLOSE, bodyStart);
    const jsonStart = content.slice(bodyStart).search(/\S/) + bodyStart;
    const bodyEnd = close === -1 ? (content[jsonStart] === '{' || content[jsonStart] === '[' ? jsonEnd(content, jsonStart) : content.length) : close;
    const end = close === -1 ? bodyEnd : close + CLOSE.length;
    const calls = callsInBody(content.slice(bodyStart, bodyEnd));
    if (calls.length > 0) blocks.push({ shape: 'hermes', start: open.index, end, calls });
    OPEN.lastIndex = end;
  }
  return blocks;
};

/** The calls in a block: parsed leniently; a body that will not parse but names a tool is kept raw, so the model hears what was wrong. */
function callsInBody(body: string): TextCall[] {
  const calls = callsFromJson(body);
  if (calls) return calls;
  const name = /"name"\s*:\s*"([\w.-]{1,80})"/.exec(body);
  if (!name) return [];
  const args = /"(?:arguments|parameters)"\s*:\s*/.exec(body);
  const raw = args ? body.slice(args.index + args[0].length, jsonEnd(body, args.index + args[0].length)).trim() : body.trim();
  return [{ name: name[1]!, arguments: raw, repairedFrom: body.trim() }];
}
