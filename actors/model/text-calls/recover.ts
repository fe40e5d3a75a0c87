import { closestName } from '../../../lib/did-you-mean.js';
import { codeSpans, insideAny } from './code-spans.js';
import { parseFencedJson } from './fenced-json.js';
import { functionTagParser } from './function-tag.js';
import { parseHermes } from './hermes.js';
import { parseLlama } from './llama.js';
import { parseMistral } from './mistral.js';
import type { ToolList } from './tool-list.js';
import type { FoundBlock, TextCall, TextCallShape } from './types.js';

/** Longest reply searched for calls; beyond it the reply is taken as text (a runaway generation is not a request). */
const MAX_RECOVERY_CHARS = 1_000_000;

/** Calls found in a reply's text, and the text left once their blocks are cut out. */
interface Recovery {
  calls: Array<TextCall & { shape: TextCallShape }>;
  /** The content outside the blocks (trimmed), or null when nothing is left. */
  content: string | null;
  /** The shapes the calls came in, each once, in order of appearance. */
  shapes: TextCallShape[];
  /** Calls in an untagged shape (fenced or bare JSON) that name no tool of the run: left in the text, listed for the trace. */
  ignored: Array<{ shape: TextCallShape; name: string; didYouMean?: string }>;
}

/**
 * Finds tool calls a model wrote as text, in any of the known shapes (Hermes,
 * `<function=…>`, Mistral, Llama 3.x, a fenced JSON call). Nothing inside
 * quoted code (a fence in another language, an inline code span) counts: a
 * reply that shows a call as an example or quotes a file holding one runs
 * nothing. In an untagged shape (fenced or bare JSON) only names of the run's
 * tools count; a tagged block (`<tool_call>`, `[TOOL_CALLS]`,
 * `<|python_tag|>`, `<function=…>`) is a call whatever it names, so a call
 * to a tool the run does not have is answered as a native one is ("unknown
 * tool … Did you mean"), not passed over in silence. `null` when no call was found.
 *
 * @example recoverTextCalls('<tool_call>{"name":"read_file","arguments":{"path":"a.py"}}</tool_call>', tools)?.calls[0].name // 'read_file'
 */
export function recoverTextCalls(content: string, tools: ToolList): Recovery | null {
  if (content.length > MAX_RECOVERY_CHARS || !mayHoldCalls(content)) return null;
  const spans = codeSpans(content);
  const skip = insideAny(spans);
  const found = [
    ...parseHermes(content, skip),
    ...functionTagParser(tools)(content, skip),
    ...parseMistral(content, skip),
    ...parseFencedJson(content, spans),
    ...parseLlama(content, skip),
  ];
  const ignored: Recovery['ignored'] = [];
  const kept: FoundBlock[] = [];
  for (const block of outermostFirst(found)) {
    if (tagged(block, content)) {
      kept.push(block);
      continue;
    }
    const known = block.calls.filter((call) => tools.has(call.name));
    for (const call of block.calls.filter((candidate) => !tools.has(candidate.name))) {
      const near = closestName(call.name, [...tools.keys()]);
      ignored.push({ shape: block.shape, name: call.name.slice(0, 80), ...(near ? { didYouMean: near } : {}) });
    }
    if (known.length > 0) kept.push({ ...block, calls: known });
  }
  if (kept.length === 0) return null;
  const calls = kept.flatMap((block) => block.calls.map((call) => ({ ...call, shape: block.shape })));
  return { calls, content: textOutside(content, kept), shapes: [...new Set(kept.map((block) => block.shape))], ignored };
}

/** Whether a block starts with a tool-call tag: the model meant a call, whatever tool it names. */
function tagged(block: FoundBlock, content: string): boolean {
  if (block.shape === 'fenced-json') return false;
  return block.shape !== 'llama' || content.startsWith('<|python_tag|>', block.start);
}

/** A cheap first look: every shape needs one of these marks. */
function mayHoldCalls(content: string): boolean {
  return /<tool_call>|<function=|\[TOOL_CALLS\]|<\|python_tag\|>|"name"/.test(content);
}

/** Blocks in text order, each dropped when it lies inside (or overlaps) one kept before it. */
function outermostFirst(blocks: FoundBlock[]): FoundBlock[] {
  const ordered = [...blocks].sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: FoundBlock[] = [];
  for (const block of ordered) if (!kept.some((other) => block.start < other.end && other.start < block.end)) kept.push(block);
  return kept;
}

function textOutside(content: string, blocks: readonly FoundBlock[]): string | null {
  let text = '';
  let at = 0;
  for (const block of blocks) {
    text += content.slice(at, block.start);
    at = block.end;
  }
  text += content.slice(at);
  // A wrapper left empty once the call inside it is cut out (`<tool_call><function=…>…</function></tool_call>`).
  const trimmed = text
    .replace(/<tool_call>\s*<\/tool_call>/g, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return trimmed === '' ? null : trimmed;
}
