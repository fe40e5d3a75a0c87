/** Where a JSON text first stops being valid JSON. */
interface JsonErrorLocation {
  /** 0-based index into the text. */
  offset: number;
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units. */
  column: number;
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
  let offset: number | null;
  try {
    offset = new JsonScanner(text).firstErrorOffset();
  } catch {
    return null; // nesting deep enough to overflow the stack
  }
  if (offset === null) return null;
  const before = text.slice(0, offset);
  return { offset, line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}

/** Thrown inside the scanner to unwind to the first error. */
class JsonSyntaxAt {
  constructor(readonly offset: number) {}
}

/** A recursive-descent JSON recogniser (RFC 8259) that only tracks its position. */
class JsonScanner {
  private at = 0;

  constructor(private readonly text: string) {}

  firstErrorOffset(): number | null {
    try {
      this.value();
      this.skipSpace();
      if (this.at < this.text.length) this.fail();
      return null;
    } catch (error) {
      if (error instanceof JsonSyntaxAt) return error.offset;
      throw error;
    }
  }

  private value(): void {
    this.skipSpace();
    const c = this.text[this.at];
    if (c === '{') {
      this.sequence('}', () => this.member());
      return;
    }
    if (c === '[') {
      this.sequence(']', () => this.value());
      return;
    }
    if (c === '"') {
      this.string();
      return;
    }
    const literal = LITERALS.find((word) => this.text.startsWith(word, this.at));
    if (literal !== undefined) {
      this.at += literal.length;
      return;
    }
    NUMBER.lastIndex = this.at;
    if (NUMBER.exec(this.text) === null) this.fail();
    this.at = NUMBER.lastIndex;
  }

  private sequence(close: string, item: () => void): void {
    this.at += 1;
    this.skipSpace();
    if (this.text[this.at] === close) {
      this.at += 1;
      return;
    }
    for (;;) {
      item();
      this.skipSpace();
      if (this.text[this.at] === close) {
        this.at += 1;
        return;
      }
      this.expect(',');
    }
  }

  private member(): void {
    this.skipSpace();
    if (this.text[this.at] !== '"') this.fail();
    this.string();
    this.expect(':');
    this.value();
  }

  private string(): void {
    const { text } = this;
    for (this.at += 1; this.at < text.length; ) {
      const c = text[this.at]!;
      if (c === '"') {
        this.at += 1;
        return;
      }
      if (c < ' ') this.fail();
      if (c !== '\\') this.at += 1;
      else if ('"\\/bfnrt'.includes(text[this.at + 1] ?? '')) this.at += 2;
      else if (text[this.at + 1] === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(this.at + 2, this.at + 6))) this.at += 6;
      else this.fail();
    }
    this.fail();
  }

  private expect(char: string): void {
    this.skipSpace();
    if (this.text[this.at] !== char) this.fail();
    this.at += 1;
  }

  private skipSpace(): void {
    while (this.at < this.text.length && ' \t\n\r'.includes(this.text[this.at]!)) this.at += 1;
  }

  private fail(): never {
    throw new JsonSyntaxAt(this.at);
  }
}
