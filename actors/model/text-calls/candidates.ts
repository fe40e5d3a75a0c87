import { type DecodedArguments, type Dialect, decodeArguments, type Encoding } from './arguments.js';
import type { CodeSpan } from './code-spans.js';
import { callsOfJson } from './json-calls.js';
import { jsonEnd, parseJsonLeniently } from './json-text.js';
import { parseKeywordArguments } from './literals.js';
import { folded, marksCall, type Token } from './markup.js';
import type { ToolList } from './tool-list.js';

/** One call inside a candidate: the name as written (a `functions.` namespace taken off), its arguments, the model's own id. */
interface CallPart {
  name: string;
  arguments: unknown;
  id?: string;
  /** The arguments as written when they needed a lenient parse or would not parse. */
  repairedFrom?: string;
}

/** A stretch of the reply that reads as one or more calls; the guard decides whether it runs. */
export interface Candidate {
  calls: CallPart[];
  start: number;
  end: number;
  encoding: Encoding | 'json-string';
  /** The syntax itself says "call" (`<function=…>`, `invoke name=`, `to=functions.`, `functions.f:0`, `call:f{`, a call token right before the name). */
  marked: boolean;
  /** What the reply wrote to start it, for the trace (`<tool_call>`, `[TOOL_CALLS]`, `to=functions.`). */
  label: string;
  /** A call written as a fenced block: the fence is its own quoting. */
  fence?: CodeSpan;
}

/** What the locators need: the reply, its delimiters, the tools on offer. */
export interface Scan {
  text: string;
  tokens: readonly Token[];
  /** Delimiters by their start offset, and by their end offset. */
  tokenAt: ReadonlyMap<number, Token>;
  tokenEnd: ReadonlyMap<number, Token>;
  tools: ToolList;
  offered: ReadonlySet<string>;
}

/** Longest JSON value searched for a call, and the most characters of JSON scanning one reply may cost. */
const MAX_JSON_CHARS = 200_000;
const JSON_SCAN_BUDGET = 20_000_000;
const NAME = /^(?:functions\.)?([\w.-]{1,120})/;
const JSON_CALL_HINT = /["'](?:name|tool_name|function|tool_calls?|function_call)["']\s*:/;

/**
 * Every stretch of the reply that reads as calls, found by where a name can
 * stand (a JSON field or key, a tag suffix, an attribute, a recipient, an id,
 * a callee, right after a call token) and decoded by what follows it. The
 * locators know the census's syntax in general, never a family by name.
 */
export function findCandidates(scan: Scan): Candidate[] {
  return [
    ...jsonCandidates(scan),
    ...tagSuffixCandidates(scan),
    ...attributeCandidates(scan),
    ...recipientCandidates(scan),
    ...kimiIdCandidates(scan),
    ...afterTokenCandidates(scan),
    ...pythonicCandidates(scan),
    ...gemmaCandidates(scan),
    ...lineStartCandidates(scan),
  ];
}

/** JSON values holding calls (objects, lists, wrappers, JSON lines), wherever they stand; the guard judges their place. */
function jsonCandidates(scan: Scan): Candidate[] {
  const { text } = scan;
  const found: Candidate[] = [];
  let budget = JSON_SCAN_BUDGET;
  const open = /[{[]/g;
  for (let match = open.exec(text); match && budget > 0; match = open.exec(text)) {
    const start = match.index;
    const end = jsonEnd(text, start, MAX_JSON_CHARS);
    budget -= end - start;
    const raw = text.slice(start, end);
    if (!JSON_CALL_HINT.test(raw) && !offeredKey(raw, scan.offered)) continue;
    const candidate = jsonCandidate(scan, start, end, raw);
    if (!candidate) continue;
    found.push(candidate);
    open.lastIndex = end;
  }
  return found;
}

function offeredKey(raw: string, offered: ReadonlySet<string>): boolean {
  const key = /^\[?\s*\{\s*"([^"\n]{1,120})"\s*:\s*\{/.exec(raw);
  return Boolean(key && offered.has(key[1]!));
}

function jsonCandidate(scan: Scan, start: number, end: number, raw: string): Candidate | null {
  const parsed = parseJsonLeniently(raw);
  const calls = parsed.ok ? callsOfJson(parsed.value, scan.offered) : null;
  const marker = tokenBefore(scan, start);
  if (calls) {
    const parts = calls.map((call) => unwrapped({ ...call, ...(parsed.ok && parsed.repaired ? { repairedFrom: raw } : {}) }));
    const encoding = parts.some((part) => part.encodedTwice) ? 'json-string' : 'json';
    return { calls: parts.map(({ encodedTwice: _, ...part }) => part), start, end, encoding, marked: false, label: marker?.text ?? 'bare' };
  }
  // A body after a call token that names a tool but will not parse: a call the model meant, answered with the JSON error.
  const name = /"(?:name|tool_name)"\s*:\s*"([\w.-]{1,120})"/.exec(raw);
  if (!marker || !marksCall(marker) || !name || raw[0] !== '{') return null;
  // The whole body up to the tag's close, when it has one: what the model wrote, not where the brackets happened to balance.
  const tag = /^<([\w:-]+)>$/.exec(marker.text);
  const close = tag ? scan.text.indexOf(`</${tag[1]}>`, start) : -1;
  const bodyEnd = close === -1 ? end : close;
  const body = scan.text.slice(start, bodyEnd).trim();
  return {
    calls: [{ name: name[1]!, arguments: body, repairedFrom: body }],
    start,
    end: start + body.length,
    encoding: 'json',
    marked: true,
    label: marker.text,
  };
}

/** Arguments written as a JSON string holding the object (Granite 4): the object. */
function unwrapped(call: CallPart): CallPart & { encodedTwice?: true } {
  if (typeof call.arguments !== 'string') return call;
  try {
    const inner: unknown = JSON.parse(call.arguments);
    if (inner !== null && typeof inner === 'object' && !Array.isArray(inner)) return { ...call, arguments: inner, encodedTwice: true };
  } catch {
    // Not JSON inside: the runner answers it with the JSON error.
  }
  return call;
}

/** `<function=NAME>` (Qwen3-Coder, Functionary v3.1), with JSON or `<parameter=…>` arguments, closed by `</function>`. */
function tagSuffixCandidates(scan: Scan): Candidate[] {
  const found: Candidate[] = [];
  const tag = /<function=("?)([^<>"\n]{1,120})\1>/g;
  for (let match = tag.exec(scan.text); match; match = tag.exec(scan.text)) {
    const name = match[2]!.trim();
    const call = callAfter(scan, name, match.index + match[0].length, { closer: '</function>' });
    if (call) found.push({ ...call.candidate, start: match.index, marked: true, label: '<function=…>' });
  }
  return found;
}

/** `<invoke name="NAME">` in any namespace (MiniMax, DeepSeek DSML, Step3), and `<function name="NAME">`. */
function attributeCandidates(scan: Scan): Candidate[] {
  const found: Candidate[] = [];
  const tag = /<((?:[|｜]DSML[|｜])?[\w-]*:?)(invoke|function|tool_call|tool)\s+name="([^"\n]{1,120})"\s*>/g;
  for (let match = tag.exec(scan.text); match; match = tag.exec(scan.text)) {
    const call = callAfter(scan, match[3]!, match.index + match[0].length, { closer: `</${match[1]}${match[2]}>` });
    if (call) found.push({ ...call.candidate, start: match.index, marked: true, label: `<${folded(match[1]!)}${match[2]}>` });
  }
  return found;
}

/** Harmony's recipient `to=functions.NAME`, with its header before it and its `<|constrain|>json<|message|>` after. */
function recipientCandidates(scan: Scan): Candidate[] {
  const found: Candidate[] = [];
  const recipient = /\bto=(functions\.)?([\w.-]{1,120})/g;
  for (let match = recipient.exec(scan.text); match; match = recipient.exec(scan.text)) {
    if (!match[1] && !scan.offered.has(match[2]!)) continue;
    const call = callAfter(scan, match[2]!, match.index + match[0].length, { closer: '<|call|>' });
    if (!call) continue;
    const header = /(?:<\|start\|>\s*)?(?:assistant\s*)?(?:<\|channel\|>\s*)?(?:commentary|analysis)?\s*$/.exec(
      scan.text.slice(Math.max(0, match.index - 80), match.index),
    );
    found.push({ ...call.candidate, start: match.index - (header?.[0].length ?? 0), marked: true, label: 'to=functions.' });
  }
  return found;
}

/** Kimi's ids `functions.NAME:IDX`, the name inside the id (kept as the call's id). */
function kimiIdCandidates(scan: Scan): Candidate[] {
  const found: Candidate[] = [];
  const id = /\bfunctions\.([\w.-]{1,120}?):(\d{1,9})\b/g;
  for (let match = id.exec(scan.text); match; match = id.exec(scan.text)) {
    const call = callAfter(scan, match[1]!, match.index + match[0].length, { closer: null });
    if (call)
      found.push({
        ...call.candidate,
        calls: call.candidate.calls.map((part) => ({ ...part, id: match[0] })),
        start: match.index,
        marked: true,
        label: 'functions.…:n',
      });
  }
  return found;
}

/**
 * A name right after a delimiter: `<tool_call>NAME` (GLM), `[TOOL_CALLS]NAME[ARGS]` (Mistral v11+),
 * `<｜tool▁sep｜>NAME` (DeepSeek), `>>>NAME` (Functionary), `<|tool_call_begin|>NAME:0` (Kimi).
 */
function afterTokenCandidates(scan: Scan): Candidate[] {
  const found: Candidate[] = [];
  for (const token of scan.tokens) {
    let at = token.end;
    while (scan.text[at] === ' ') at++;
    const name = NAME.exec(scan.text.slice(at, at + 130));
    if (!name) continue;
    let after = at + name[0].length;
    let id: string | undefined;
    const index = /^:(\d{1,9})/.exec(scan.text.slice(after, after + 12));
    if (index) {
      id = `${name[0]}${index[0]}`;
      after += index[0].length;
    }
    const callId = /^\[CALL_ID\]([\w-]{1,64})/.exec(scan.text.slice(after, after + 80));
    if (callId) {
      id = callId[1];
      after += callId[0].length;
    }
    const call = callAfter(scan, name[1]!, after, { closer: null });
    if (!call) continue;
    const calls = id ? call.candidate.calls.map((part) => ({ ...part, id })) : call.candidate.calls;
    found.push({ ...call.candidate, calls, start: at, marked: marksCall(token), label: token.text });
  }
  return found;
}

/** Python calls: a list `[f(a=1), g()]` (Llama 3.2/4, Gemma 3, LFM2), or one call per line (Olmo 3); literal keyword arguments only. */
function pythonicCandidates(scan: Scan): Candidate[] {
  const { text } = scan;
  const found: Candidate[] = [];
  const list = /\[\s*[A-Za-z_][\w.]*\s*\(/g;
  for (let match = list.exec(text); match; match = list.exec(text)) {
    const parsed = pythonicList(text, match.index);
    if (!parsed) continue;
    found.push({
      calls: parsed.calls,
      start: match.index,
      end: parsed.end,
      encoding: 'pythonic',
      marked: false,
      label: tokenBefore(scan, match.index)?.text ?? 'bare',
    });
    list.lastIndex = parsed.end;
  }
  const single = /(?<![\w.])([A-Za-z_][\w]*)(?:\.call)?\(/g;
  for (let match = single.exec(text); match; match = single.exec(text)) {
    if (!atCallStart(scan, match.index)) continue;
    const args = parseKeywordArguments(text, match.index + match[0].length - 1);
    if (!args) continue;
    found.push({
      calls: [{ name: match[1]!, arguments: args.value }],
      start: match.index,
      end: args.end,
      encoding: 'pythonic',
      marked: false,
      label: tokenBefore(scan, match.index)?.text ?? 'bare',
    });
    single.lastIndex = args.end;
  }
  return found;
}

function pythonicList(text: string, open: number): { calls: CallPart[]; end: number } | null {
  const calls: CallPart[] = [];
  let at = open + 1;
  for (;;) {
    while (/\s/.test(text[at] ?? '')) at++;
    const callee = /^([A-Za-z_][\w]*)(?:\.call)?(?=\()/.exec(text.slice(at, at + 130));
    if (!callee) return null;
    const args = parseKeywordArguments(text, at + callee[0].length);
    if (!args) return null;
    calls.push({ name: callee[1]!, arguments: args.value });
    at = args.end;
    while (/\s/.test(text[at] ?? '')) at++;
    if (text[at] === ']') return { calls, end: at + 1 };
    if (text[at] !== ',') return null;
    at++;
  }
}

/** Where a bare call may start: a line's start, or right after a delimiter (white space between). */
function atCallStart(scan: Scan, at: number): boolean {
  let before = at;
  while (before > 0 && (scan.text[before - 1] === ' ' || scan.text[before - 1] === '\t')) before--;
  if (before === 0 || scan.text[before - 1] === '\n') return true;
  return scan.tokenEnd.has(before);
}

/** Gemma's `call:NAME{key:<escape>value<escape>}` (FunctionGemma, Gemma 4). */
function gemmaCandidates(scan: Scan): Candidate[] {
  const found: Candidate[] = [];
  const callee = /\bcall:([\w.-]{1,120})(?=\{)/g;
  for (let match = callee.exec(scan.text); match; match = callee.exec(scan.text)) {
    const call = callAfter(scan, match[1]!, match.index + match[0].length, { closer: null, dialect: 'gemma' });
    if (call) found.push({ ...call.candidate, start: match.index, marked: true, label: 'call:…{' });
  }
  return found;
}

/** A tool's name at a line's start with its JSON right after it: Mistral's calls with `[ARGS]` and `[TOOL_CALLS]` stripped (`add{"a": 1}`). */
function lineStartCandidates(scan: Scan): Candidate[] {
  const found: Candidate[] = [];
  const line = /^[ \t]*([A-Za-z_][\w.-]{0,119})[ \t]*\n?(?=\{)/gm;
  for (let match = line.exec(scan.text); match; match = line.exec(scan.text)) {
    if (!scan.offered.has(match[1]!)) continue;
    const args = decodeArguments(scan.text, match.index + match[0].length, scan.tools.get(match[1]!)?.types);
    if (args?.encoding !== 'json') continue;
    found.push({
      calls: [{ name: match[1]!, arguments: args.value, ...repaired(args) }],
      start: match.index,
      end: args.end,
      encoding: 'json',
      marked: false,
      label: 'name{…}',
    });
  }
  return found;
}

/**
 * The call whose name has been read, with its arguments from `at` on: past
 * the separators a format puts between them (delimiters such as `[ARGS]` or
 * `<|message|>`, the words `json` and `commentary`, a Markdown fence), then
 * decoded; no arguments at all when a closing delimiter comes first. `closer`
 * is the tag that ends this call, taken into it when it follows; `dialect` says which grammar a `{` opens.
 */
function callAfter(scan: Scan, rawName: string, at: number, how: { closer: string | null; dialect?: Dialect }): { candidate: Candidate } | null {
  const { closer, dialect = 'json' } = how;
  // A namespace before the name (`functions.`) and Llama's `.call` after it are not part of it.
  const name = rawName.replace(/^functions\./, '').replace(/\.call$/, '');
  const { text } = scan;
  const types = scan.tools.get(name)?.types;
  let position = at;
  let fenced = false;
  let decoded: DecodedArguments | null = null;
  for (let steps = 0; steps < 12 && !decoded; steps++) {
    decoded = decodeArguments(text, position, types, dialect);
    if (decoded) break;
    const space = /^\s+/.exec(text.slice(position, position + 200));
    const token = scan.tokenAt.get(position);
    const word = /^(?:json|commentary)\b/.exec(text.slice(position, position + 12));
    const fence = fenced ? null : /^```(?:json)?[ \t]*\n/.exec(text.slice(position, position + 12));
    if (space) position += space[0].length;
    else if (token && separates(token, closer)) position = token.end;
    else if (word) position += word[0].length;
    else if (fence) {
      fenced = true;
      position += fence[0].length;
    } else break;
  }
  const args: DecodedArguments | null = decoded ?? (!fenced && closesHere(scan, position, closer) ? { value: {}, end: position, encoding: 'none' } : null);
  if (!args) return null;
  let end = args.end;
  if (fenced) {
    const close = /^\s*```/.exec(text.slice(end, end + 40));
    if (!close) return null;
    end += close[0].length;
  }
  if (closer) {
    const close = new RegExp(`^\\s*${escapeRegExp(closer)}`).exec(text.slice(end, end + closer.length + 40));
    if (close) end += close[0].length;
  }
  const call: CallPart = { name, arguments: args.value, ...repaired(args) };
  return { candidate: { calls: [call], start: at, end, encoding: args.encoding, marked: false, label: '' } };
}

function repaired(args: DecodedArguments): { repairedFrom?: string } {
  return args.repairedFrom ? { repairedFrom: args.repairedFrom } : {};
}

/** Whether a special token stands between a call's name and its arguments (`[ARGS]`, `<|message|>`, `<｜tool▁sep｜>`); a tag never does (it starts something of its own). */
function separates(token: Token, closer: string | null): boolean {
  return /^<[|｜]|^\[|^<\|[A-Za-z_]+>$/.test(token.text) && !closes(token, closer);
}

/** Whether a delimiter ends a call rather than separating its name from its arguments. */
function closes(token: Token, closer: string | null): boolean {
  if (closer && token.text === closer) return true;
  const text = folded(token.text);
  return text.startsWith('</') || /end|suffix|close/.test(text) || text === '<|call|>' || /^<[a-z_]+\|>$/.test(text);
}

/** A call with no arguments must be closed where they would start: by its closing tag or a call token that ends it. */
function closesHere(scan: Scan, at: number, closer: string | null): boolean {
  if (closer && scan.text.startsWith(closer, at)) return true;
  const token = scan.tokenAt.get(at);
  return Boolean(token && closes(token, closer) && marksCall(token));
}

/** The delimiter that ends right before `at` (white space between), if any. */
function tokenBefore(scan: Scan, at: number): Token | undefined {
  let before = at;
  while (before > 0 && /\s/.test(scan.text[before - 1]!)) before--;
  return scan.tokenEnd.get(before);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
