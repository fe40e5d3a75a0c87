import { parseJsonLeniently } from './json-text.js';
import type { ToolList } from './tool-list.js';
import type { FoundBlock, ShapeParser, TextCall } from './types.js';

const OPEN = /<function=([\w.-]{1,80})>/g;
const CLOSE = '</function>';
const PARAMETER = /<parameter=([\w.-]{1,80})>\n?([\s\S]*?)\n?<\/parameter>/g;

/**
 * `<function=NAME>{json}</function>` (Llama 3.1's custom-tool format) and its
 * XML-parameter form `<function=NAME><parameter=path>a.py</parameter></function>`
 * (Qwen3-Coder); parameter values are typed by the tool's schema.
 */
export function functionTagParser(tools: ToolList): ShapeParser {
  return (content, skip) => {
    const blocks: FoundBlock[] = [];
    OPEN.lastIndex = 0;
    for (let open = OPEN.exec(content); open; open = OPEN.exec(content)) {
      if (skip(open.index)) continue;
      const bodyStart = open.index + open[0].length;
      const close = content.indexOf(CLOSE, bodyStart);
      const end = close === -1 ? content.length : close + CLOSE.length;
      const call = callOf(open[1]!, content.slice(bodyStart, close === -1 ? content.length : close), tools);
      blocks.push({ shape: 'function-tag', start: open.index, end, calls: [call] });
      OPEN.lastIndex = end;
    }
    return blocks;
  };
}

function callOf(name: string, body: string, tools: ToolList): TextCall {
  const trimmed = body.trim();
  if (trimmed === '') return { name, arguments: {} };
  if (!trimmed.startsWith('<parameter=')) {
    const parsed = parseJsonLeniently(trimmed);
    if (!parsed.ok) return { name, arguments: trimmed, repairedFrom: trimmed };
    return parsed.repaired ? { name, arguments: parsed.value, repairedFrom: trimmed } : { name, arguments: parsed.value };
  }
  const types = tools.get(name)?.types;
  const args: Record<string, unknown> = {};
  PARAMETER.lastIndex = 0;
  for (let parameter = PARAMETER.exec(trimmed); parameter; parameter = PARAMETER.exec(trimmed)) {
    args[parameter[1]!] = typed(parameter[2]!, types?.get(parameter[1]!));
  }
  return { name, arguments: args };
}

/** A parameter's text as the schema's type: numbers, booleans, arrays and objects are parsed, strings kept as written. */
function typed(text: string, type: string | undefined): unknown {
  if (type === undefined || type === 'string') return text;
  const parsed = parseJsonLeniently(text.trim());
  return parsed.ok ? parsed.value : text;
}
