import { jsonEnd, parseJsonLeniently } from './json-text.js';
import { parseKeywordArguments, parseLiteral } from './literals.js';

/** How a call's arguments were written (the census's argument encodings). */
export type Encoding = 'json' | 'json-string' | 'xml-parameters' | 'arg-key-value' | 'invoke-parameters' | 'pythonic' | 'gemma' | 'none';

/** Arguments read from the text: the value (an object, or the raw text when it would not decode), where they end, how they were written. */
export interface DecodedArguments {
  value: unknown;
  end: number;
  encoding: Encoding;
  /** Set when the JSON needed a lenient parse, or would not parse at all: the text as written. */
  repairedFrom?: string;
}

/** Which grammar a `{` opens first: JSON, or Gemma's (after `call:NAME`). */
export type Dialect = 'json' | 'gemma';

/** The JSON types a parameter may take, by name (from the tool's schema). */
type ParameterTypes = ReadonlyMap<string, readonly string[]> | undefined;

const X1 = /^<parameter=("?)([^<>"\n]{1,120})\1>/;
const X1_ENDS = ['</parameter>', '<parameter=', '</function>'];
const X2 = /^<arg_key>([\s\S]{0,200}?)<\/arg_key>\s*(?:\\n)?\s*<arg_value>/;
const X3 = /^<((?:[|｜]DSML[|｜])?[\w-]*:?)parameter\s+name="([^"\n]{1,120})"(?:\s+string="(true|false)")?\s*>/;

/**
 * The arguments that start at `at`, in whichever encoding they are written:
 * a JSON object (strict, then lenient), keyword arguments `(k='v')`, Gemma's
 * `{k:<escape>v<escape>}`, or a run of parameter tags (`<parameter=k>`,
 * `<arg_key>`/`<arg_value>`, `<parameter name="k">`) typed by the schema. Null
 * when nothing there is arguments.
 *
 * @example decodeArguments('{"path": "a.py"}', 0, undefined) // { value: { path: 'a.py' }, end: 16, encoding: 'json' }
 */
export function decodeArguments(text: string, at: number, types: ParameterTypes, dialect: Dialect = 'json'): DecodedArguments | null {
  const char = text[at];
  if (char === '{') return dialect === 'gemma' ? (gemmaObject(text, at) ?? jsonObject(text, at)) : (jsonObject(text, at) ?? gemmaObject(text, at));
  if (char === '(') {
    const parsed = parseKeywordArguments(text, at);
    return parsed ? { value: parsed.value, end: parsed.end, encoding: 'pythonic' } : null;
  }
  if (char !== '<') return null;
  const head = text.slice(at, at + 300);
  if (X1.test(head)) return tagRun(text, at, (from) => xmlParameter(text, from, types), 'xml-parameters');
  if (X2.test(head)) return tagRun(text, at, (from) => argKeyValue(text, from, types), 'arg-key-value');
  if (X3.test(head)) return tagRun(text, at, (from) => invokeParameter(text, from, types), 'invoke-parameters');
  return null;
}

/** A JSON object's arguments; a string that holds an object (encoded twice) is unwrapped. */
function jsonObject(text: string, at: number): DecodedArguments | null {
  const end = jsonEnd(text, at);
  const raw = text.slice(at, end);
  const parsed = parseJsonLeniently(raw);
  if (!parsed.ok || parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) return null;
  return { value: parsed.value, end, encoding: 'json', ...(parsed.repaired ? { repairedFrom: raw } : {}) };
}

function gemmaObject(text: string, at: number): DecodedArguments | null {
  const parsed = parseLiteral(text, at, 'gemma');
  if (!parsed || parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) return null;
  return { value: parsed.value, end: parsed.end, encoding: 'gemma' };
}

type Pair = { key: string; value: unknown; end: number } | null;

/** Consecutive parameter tags (white space between them), as one object. */
function tagRun(text: string, at: number, next: (from: number) => Pair, encoding: Encoding): DecodedArguments | null {
  const value: Record<string, unknown> = {};
  let end = at;
  let count = 0;
  for (let from = at; ; ) {
    const pair = next(from);
    if (!pair) break;
    Object.defineProperty(value, pair.key, { value: pair.value, enumerable: true, writable: true, configurable: true });
    end = pair.end;
    count++;
    from = skipSpace(text, pair.end);
  }
  return count === 0 ? null : { value, end, encoding };
}

/** `<parameter=k>\nvalue\n</parameter>` (Qwen3-Coder); a value may end at the next parameter or at `</function>` when its close is missing. */
function xmlParameter(text: string, at: number, types: ParameterTypes): Pair {
  const open = X1.exec(text.slice(at, at + 300));
  if (!open) return null;
  const start = at + open[0].length;
  let stop = text.length;
  let closer = '';
  for (const end of X1_ENDS) {
    const found = text.indexOf(end, start);
    if (found !== -1 && found < stop) {
      stop = found;
      closer = end;
    }
  }
  const end = closer === '</parameter>' ? stop + closer.length : stop;
  return { key: open[2]!, value: typedValue(trimOneNewline(text.slice(start, stop)), types?.get(open[2]!)), end };
}

/** `<arg_key>k</arg_key><arg_value>v</arg_value>` (GLM). */
function argKeyValue(text: string, at: number, types: ParameterTypes): Pair {
  const open = X2.exec(text.slice(at, at + 300));
  if (!open) return null;
  const start = at + open[0].length;
  const close = text.indexOf('</arg_value>', start);
  if (close === -1) return null;
  const key = open[1]!.trim();
  return { key, value: typedValue(text.slice(start, close), types?.get(key)), end: close + '</arg_value>'.length };
}

/** `<parameter name="k">v</parameter>` with any namespace (`steptml:`, `｜DSML｜`); DSML's `string="true"` keeps the text as it is. */
function invokeParameter(text: string, at: number, types: ParameterTypes): Pair {
  const open = X3.exec(text.slice(at, at + 300));
  if (!open) return null;
  const start = at + open[0].length;
  const closeTag = `</${open[1]}parameter>`;
  const close = text.indexOf(closeTag, start);
  if (close === -1) return null;
  const raw = trimOneNewline(text.slice(start, close));
  const value =
    open[3] === 'true' ? raw : open[3] === 'false' ? typedValue(raw, ['object', 'array', 'number', 'boolean', 'null']) : typedValue(raw, types?.get(open[2]!));
  return { key: open[2]!, value, end: close + closeTag.length };
}

function trimOneNewline(text: string): string {
  return text.replace(/^\r?\n/, '').replace(/\r?\n$/, '');
}

/**
 * A parameter's text as the schema's types say: a string parameter keeps the
 * text as written (`"123"` stays a string); numbers, booleans, null, objects
 * and arrays are parsed as JSON, then as Python literals (`['a']`, `True`), as
 * the templates render them. A parameter the schema does not type is parsed
 * only when the whole text is such a value.
 *
 * @example typedValue('3', ['integer']) // 3
 */
function typedValue(text: string, types: readonly string[] | undefined): unknown {
  if (types?.length === 1 && types[0] === 'string') return text;
  const trimmed = text.trim();
  if (types?.includes('string') && !/^(?:null|None|none|nil)$/.test(trimmed)) return text;
  const literal = literalValue(trimmed);
  if (literal === NOT_A_LITERAL) return text;
  if (!types || types.length === 0) return literal;
  return types.includes(jsonType(literal)) || (jsonType(literal) === 'integer' && types.includes('number')) ? literal : text;
}

const NOT_A_LITERAL = Symbol('not a literal');

function literalValue(text: string): unknown {
  if (text === '') return NOT_A_LITERAL;
  if (/^(?:none|nil)$/.test(text)) return null;
  try {
    return JSON.parse(text);
  } catch {
    const parsed = parseLiteral(text, 0, 'python');
    return parsed && parsed.end === text.length ? parsed.value : NOT_A_LITERAL;
  }
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && /\s/.test(text[at]!)) at++;
  return at;
}
