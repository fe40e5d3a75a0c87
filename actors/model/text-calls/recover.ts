import { type Candidate, findCandidates, type Scan } from './candidates.js';
import { codeSpans } from './code-spans.js';
import { fencedCandidates } from './fenced-json.js';
import { collapse, judgeCandidates } from './guard.js';
import { reasoningSpans, type Token, tokensOf } from './markup.js';
import type { ToolList } from './tool-list.js';
import type { Recovery } from './types.js';

/** Longest reply searched for calls; beyond it the reply is taken as text (a runaway generation is not a request). */
const MAX_RECOVERY_CHARS = 1_000_000;

interface RecoverOptions {
  /** What the model was shown from files, tool results and the user: a call it repeats word for word from there is not run. */
  shownTexts?: readonly string[];
  /** Only calls the syntax marks as calls (the endpoint has sent native calls this run, so bare JSON is data). */
  markedOnly?: boolean;
}

/**
 * Finds the tool calls a model wrote as text, in any format of the census
 * (docs/endpoints.md, "Tool-call formats rein reads"): a name from the tools
 * offered, with arguments in any encoding the census shows (a JSON object or
 * a string holding one, parameter tags, Python keyword arguments, Gemma's
 * grammar), one call or several, inside any of the families' delimiters or
 * none. What runs is the guard's decision (guard.ts): nothing quoted, nothing
 * in reasoning or repeated from a file or a tool result, and no unmarked call
 * with text after it. `null` when the reply holds nothing that reads as a call.
 *
 * @example recoverTextCalls('<tool_call>{"name":"read_file","arguments":{"path":"a.py"}}</tool_call>', tools)?.calls[0].name // 'read_file'
 */
export function recoverTextCalls(content: string, tools: ToolList, options: RecoverOptions = {}): Recovery | null {
  if (content.length > MAX_RECOVERY_CHARS || !/[<[{(>]|functools/.test(content)) return null;
  const scan = scanOf(content, tools);
  const found = findCandidates(scan);
  const spans = codeSpans(masked(content, found));
  const candidates = outermost([...found, ...fencedCandidates(scan, spans)]);
  if (candidates.length === 0) return null;
  const recovery = judgeCandidates(candidates, {
    scan,
    spans,
    reasoning: reasoningSpans(content),
    echoes: (options.shownTexts ?? []).map(collapse),
    markedOnly: options.markedOnly ?? false,
  });
  return recovery.calls.length > 0 || recovery.notRun.length > 0 || recovery.ignored.length > 0 ? recovery : null;
}

function scanOf(text: string, tools: ToolList): Scan {
  const tokens = tokensOf(text);
  const tokenAt = new Map<number, Token>();
  const tokenEnd = new Map<number, Token>();
  for (const token of tokens) {
    if (!tokenAt.has(token.start)) tokenAt.set(token.start, token);
    tokenEnd.set(token.end, token);
  }
  return { text, tokens, tokenAt, tokenEnd, tools, offered: new Set(tools.keys()) };
}

/**
 * The text with the candidates overwritten (line breaks kept; a letter, so no line of it reads as a fence), so quoted code is found around them, not
 * in them: a Markdown fence inside a call (DeepSeek's ```json) does not open a code block.
 */
function masked(text: string, candidates: readonly Candidate[]): string {
  const chars = [...text.split('')];
  for (const candidate of candidates) for (let at = candidate.start; at < candidate.end; at++) if (chars[at] !== '\n') chars[at] = 'x';
  return chars.join('');
}

/** Candidates in text order, each dropped when it lies inside (or overlaps) one kept before it. */
function outermost(candidates: readonly Candidate[]): Candidate[] {
  const ordered = [...candidates].sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Candidate[] = [];
  for (const candidate of ordered) if (!kept.some((other) => candidate.start < other.end && other.start < candidate.end)) kept.push(candidate);
  return kept;
}
