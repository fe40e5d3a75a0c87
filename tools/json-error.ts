/** Where a JSON text first stops being valid JSON. */
export interface JsonErrorLocation {
  /** 0-based index into the text. */
  offset: number;
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units. */
  column: number;
}

class JsonSyntaxAt extends Error {
  constructor(readonly offset: number) {
    super(`invalid JSON at ${offset}`);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERALS = ['true', 'false', 'null'];

/**
 * Finds the first error in a JSON text, or `null` when it is valid. Node 20's
 * `JSON.parse` messages often omit the position ("Unexpected token '}', ...
 * is not valid JSON"), so this strict scanner supplies it. Nesting deep enough
 * to overflow the stack reports `null`; callers then fall back to the message.
 *
 * @example locateJsonError('{"a": }') // { offset: 6, line: 1, column: 7 }
 */
export function locateJsonError(text: string): JsonErrorLocation | null {
  try {
    scan(text);
    return null;
  } catch (error) {
    if (!(error instanceof JsonSyntaxAt)) return null;
    const before = text.slice(0, error.offset);
    const line = before.split('\n').length;
    return { offset: error.offset, line, column: error.offset - (before.lastIndexOf('\n') + 1) + 1 };
  }
}

function scan(text: string): void {
  let i = 0;
  const fail = (): never => {
    throw new JsonSyntaxAt(i);
  };
  const skipSpace = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i += 1;
  };
  const expect = (char: string): void => {
    skipSpace();
    if (text[i] !== char) fail();
    i += 1;
  };
  const string = (): void => {
    i += 1;
    while (i < text.length) {
      const c = text[i]!;
      if (c === '"') return void (i += 1);
      if (c < ' ') fail();
      if (c !== '\\') i += 1;
      else if ('"\\/bfnrt'.includes(text[i + 1] ?? '')) i += 2;
      else if (text[i + 1] === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) i += 6;
      else fail();
    }
    fail();
  };
  const sequence = (close: string, item: () => void): void => {
    i += 1;
    skipSpace();
    if (text[i] === close) return void (i += 1);
    for (;;) {
      item();
      skipSpace();
      if (text[i] === close) return void (i += 1);
      expect(',');
    }
  };
  const member = (): void => {
    skipSpace();
    if (text[i] !== '"') fail();
    string();
    expect(':');
    value();
  };
  const value = (): void => {
    skipSpace();
    const c = text[i];
    if (c === '{') return sequence('}', member);
    if (c === '[') return sequence(']', value);
    if (c === '"') return string();
    const literal = LITERALS.find((word) => text.startsWith(word, i));
    if (literal !== undefined) return void (i += literal.length);
    NUMBER.lastIndex = i;
    if (NUMBER.exec(text) === null) fail();
    i = NUMBER.lastIndex;
  };
  value();
  skipSpace();
  if (i < text.length) fail();
}
