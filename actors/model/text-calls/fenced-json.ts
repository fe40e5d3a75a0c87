import type { Candidate, Scan } from './candidates.js';
import type { CodeSpan } from './code-spans.js';
import { callsOfJson } from './json-calls.js';
import { parseJsonLeniently } from './json-text.js';

/** Info strings of a fence that may hold a call; a fence in another language is quoted code. */
const CALL_FENCES = new Set(['', 'json', 'json5', 'jsonc', 'tool_call', 'tool_code', 'tool']);

/**
 * Fenced blocks that hold exactly calls and nothing else (a JSON file with
 * other keys is data): Markdown fences, and a fence that starts mid-line
 * (Command R's `Action: ```json`). The guard takes them only at the reply's end.
 */
export function fencedCandidates(scan: Scan, spans: readonly CodeSpan[]): Candidate[] {
  const found: Candidate[] = [];
  for (const span of spans) {
    const body = fenceBody(scan.text, span);
    if (body === null) continue;
    const parsed = parseJsonLeniently(body.trim());
    const calls = parsed.ok ? callsOfJson(parsed.value, scan.offered) : null;
    if (!calls) continue;
    found.push({ calls, start: span.start, end: span.end, encoding: 'json', marked: false, label: 'fence', fence: span });
  }
  return found;
}

/** The text inside a fence whose language may hold a call, or null. An inline span of three or more backticks counts, its first word as the language. */
function fenceBody(text: string, span: CodeSpan): string | null {
  if (span.fence) return CALL_FENCES.has(span.fence.info) ? text.slice(span.fence.bodyStart, span.fence.bodyEnd) : null;
  const ticks = /^`{3,}/.exec(text.slice(span.start, span.end));
  if (!ticks) return null;
  const inner = text.slice(span.start + ticks[0].length, span.end - ticks[0].length);
  const info = /^([\w-]*)[ \t]*\n/.exec(inner);
  if (info && !CALL_FENCES.has(info[1]!.toLowerCase())) return null;
  return info ? inner.slice(info[0].length) : inner;
}
