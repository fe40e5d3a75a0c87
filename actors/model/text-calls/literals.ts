/**
 * Literal values as models write them outside JSON: Python literals
 * (`'text'`, `True`, `None`, `{'a': [1, 2]}`, and JSON's `true`/`null`, which
 * Olmo 3 mixes in) and Gemma's grammar (`{city:<escape>Paris<escape>,n:3}`,
 * strings between `<escape>` or `<|"|>` markers, keys unquoted). Only
 * literals: a name, a call or an expression is not a value, so Python code
 * is never mistaken for arguments.
 */

type Dialect = 'python' | 'gemma';

/** A parsed value and the offset just after it. */
type Parsed = { value: unknown; end: number } | null;

const GEMMA_QUOTES = ['<escape>', '<|"|>'];
const WORDS: Record<string, unknown> = { True: true, False: false, None: null, true: true, false: false, null: null };
const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/;
const IDENTIFIER = /^[A-Za-z_][\w-]*/;
/** Nesting deeper than this is not an argument a model writes; it stops a hostile reply from exhausting the stack. */
const MAX_DEPTH = 64;

/**
 * The literal that starts at `at` (after white space), or null.
 *
 * @example parseLiteral("['a', True]", 0, 'python') // { value: ['a', true], end: 11 }
 */
export function parseLiteral(text: string, at: number, dialect: Dialect, depth = 0): Parsed {
  if (depth > MAX_DEPTH) return null;
  const start = skipSpace(text, at);
  const char = text[start];
  if (char === undefined) return null;
  if (dialect === 'gemma') {
    const quote = GEMMA_QUOTES.find((marker) => text.startsWith(marker, start));
    if (quote) {
      const close = text.indexOf(quote, start + quote.length);
      return close === -1 ? null : { value: text.slice(start + quote.length, close), end: close + quote.length };
    }
  }
  if (char === '"' || char === "'") return pythonString(text, start);
  if (char === '[' || (char === '(' && dialect === 'python')) return sequence(text, start, { dialect, depth });
  if (char === '{') return mapping(text, start, dialect, depth);
  const number = NUMBER.exec(text.slice(start, start + 64));
  if (number && !/[\w.]/.test(text[start + number[0].length] ?? '')) return { value: Number(number[0]), end: start + number[0].length };
  const word = IDENTIFIER.exec(text.slice(start, start + 16));
  if (word && word[0] in WORDS) return { value: WORDS[word[0]], end: start + word[0].length };
  return null;
}

/**
 * Keyword arguments from `(` to the matching `)`: `(path='a.py', start=10)`; every value a literal.
 *
 * @example parseKeywordArguments("(path='a.py')", 0) // { value: { path: 'a.py' }, end: 13 }
 */
export function parseKeywordArguments(text: string, open: number): Parsed {
  if (text[open] !== '(') return null;
  const args: Record<string, unknown> = {};
  let at = skipSpace(text, open + 1);
  if (text[at] === ')') return { value: args, end: at + 1 };
  for (;;) {
    const key = IDENTIFIER.exec(text.slice(at, at + 128));
    if (!key) return null;
    at = skipSpace(text, at + key[0].length);
    if (text[at] !== '=') return null;
    const value = parseLiteral(text, at + 1, 'python');
    if (!value) return null;
    setKey(args, key[0], value.value);
    at = skipSpace(text, value.end);
    if (text[at] === ')') return { value: args, end: at + 1 };
    if (text[at] !== ',') return null;
    at = skipSpace(text, at + 1);
    if (text[at] === ')') return { value: args, end: at + 1 };
  }
}

/** A list `[…]` or (Python) a tuple `(…)`, read as a list. */
function sequence(text: string, open: number, context: { dialect: Dialect; depth: number }): Parsed {
  const { dialect, depth } = context;
  const close = text[open] === '[' ? ']' : ')';
  const items: unknown[] = [];
  let at = skipSpace(text, open + 1);
  while (text[at] !== close) {
    const item = parseLiteral(text, at, dialect, depth + 1);
    if (!item) return null;
    items.push(item.value);
    at = skipSpace(text, item.end);
    if (text[at] === ',') at = skipSpace(text, at + 1);
    else if (text[at] !== close) return null;
  }
  return { value: items, end: at + 1 };
}

function mapping(text: string, open: number, dialect: Dialect, depth: number): Parsed {
  const value: Record<string, unknown> = {};
  let at = skipSpace(text, open + 1);
  while (text[at] !== '}') {
    const key = mappingKey(text, at, dialect, depth);
    if (!key) return null;
    at = skipSpace(text, key.end);
    if (text[at] !== ':') return null;
    const item = parseLiteral(text, at + 1, dialect, depth + 1);
    if (!item) return null;
    setKey(value, key.key, item.value);
    at = skipSpace(text, item.end);
    if (text[at] === ',') at = skipSpace(text, at + 1);
    else if (text[at] !== '}') return null;
  }
  return { value, end: at + 1 };
}

/** A key: a quoted string, or (Gemma) a bare name. */
function mappingKey(text: string, at: number, dialect: Dialect, depth: number): { key: string; end: number } | null {
  if (dialect === 'gemma') {
    const bare = IDENTIFIER.exec(text.slice(at, at + 128));
    if (bare) return { key: bare[0], end: at + bare[0].length };
  }
  const key = parseLiteral(text, at, dialect, depth + 1);
  return key && typeof key.value === 'string' ? { key: key.value, end: key.end } : null;
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0', b: '\b', f: '\f', v: '\v', a: '\x07' };

/** A Python string literal in single or double quotes, escapes decoded. */
function pythonString(text: string, start: number): Parsed {
  const quote = text[start]!;
  let out = '';
  for (let at = start + 1; at < text.length; at++) {
    const char = text[at]!;
    if (char === quote) return { value: out, end: at + 1 };
    if (char === '\n') return null;
    if (char !== '\\') {
      out += char;
      continue;
    }
    const next = text[at + 1];
    if (next === undefined) return null;
    const hex = next === 'x' ? 2 : next === 'u' ? 4 : next === 'U' ? 8 : 0;
    if (hex > 0) {
      const code = text.slice(at + 2, at + 2 + hex);
      if (!/^[0-9a-fA-F]+$/.test(code) || code.length !== hex) return null;
      out += String.fromCodePoint(Number.parseInt(code, 16));
      at += 1 + hex;
      continue;
    }
    out += ESCAPES[next] ?? `\\${next}`;
    at++;
  }
  return null;
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && /\s/.test(text[at]!)) at++;
  return at;
}

/** Sets a key on a plain object without letting `__proto__` reach the prototype. */
function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
