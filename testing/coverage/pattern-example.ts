/**
 * A short text that a rules file's regular expression matches (a check's
 * `passPattern`), so coverage can answer a verification run the way the
 * rules count as a pass. It reads literals, classes, groups, alternation and
 * quantifiers, taking the shortest way through each; lookarounds and
 * back-references it does not read (null). The example is checked against
 * the pattern itself before it is used, so a wrong guess is null, never a
 * witness that does not pass.
 *
 * @example examplePassing('^(\\d+) problems?$') // '0 problems'
 */
export function examplePassing(pattern: string, matches: (text: string) => boolean = (text) => new RegExp(pattern, 'm').test(text)): string | null {
  try {
    const reader = new PatternReader(pattern);
    const text = reader.alternatives();
    return reader.done() && matches(text) ? text : null;
  } catch (error) {
    if (error instanceof Unreadable || error instanceof SyntaxError) return null;
    throw error;
  }
}

class Unreadable extends Error {
  override name = 'Unreadable';
}

const ESCAPES: Record<string, string> = { d: '0', D: 'a', w: 'a', W: ' ', s: ' ', S: 'a', n: '\n', t: '\t', r: '\r', b: '', B: '' };
// Characters tried, in order, for a negated class or `.`.
const CANDIDATES = ['a', '0', ' ', 'x', 'Z', '_', '-', '.', '#'];

class PatternReader {
  private at = 0;

  constructor(private readonly pattern: string) {}

  done(): boolean {
    return this.at === this.pattern.length;
  }

  /** `a|b`: the first alternative. */
  alternatives(): string {
    const first = this.sequence();
    while (this.peek() === '|') {
      this.at++;
      this.sequence();
    }
    return first;
  }

  private sequence(): string {
    let text = '';
    while (!this.done() && this.peek() !== '|' && this.peek() !== ')') {
      const atom = this.atom();
      text += atom.repeat(this.quantifier());
    }
    return text;
  }

  private atom(): string {
    const char = this.pattern[this.at++]!;
    if (char === '^' || char === '$') return '';
    if (char === '.') return 'a';
    if (char === '\\') return this.escape();
    if (char === '[') return this.characterClass();
    if (char === '(') {
      if (this.peek() === '?') {
        const named = this.pattern.slice(this.at).match(/^\?(?::|<[A-Za-z_$][\w$]*>)/);
        if (!named) throw new Unreadable('a lookaround');
        this.at += named[0].length;
      }
      const inner = this.alternatives();
      if (this.pattern[this.at++] !== ')') throw new Unreadable('an unclosed group');
      return inner;
    }
    if ('*+?'.includes(char)) throw new Unreadable('a quantifier with nothing before it');
    return char;
  }

  private escape(): string {
    const char = this.pattern[this.at++];
    if (char === undefined) throw new Unreadable('a trailing backslash');
    if (/[1-9k]/.test(char)) throw new Unreadable('a back-reference');
    if (char === 'x' || char === 'u') {
      const hex = this.pattern.slice(this.at, this.at + (char === 'x' ? 2 : 4));
      if (!/^[0-9a-fA-F]+$/.test(hex)) throw new Unreadable('an escape');
      this.at += hex.length;
      return String.fromCharCode(Number.parseInt(hex, 16));
    }
    return ESCAPES[char] ?? char;
  }

  /** `[a-z]`, `[^\n]`: its first character, or the first candidate it holds (the class itself, compiled, decides). */
  private characterClass(): string {
    const start = this.at;
    if (this.peek() === '^') this.at++;
    if (this.peek() === ']') this.at++;
    while (!this.done() && this.peek() !== ']') this.at += this.peek() === '\\' ? 2 : 1;
    if (this.done()) throw new Unreadable('an unclosed class');
    const body = this.pattern.slice(start, this.at++);
    const holds = new RegExp(`^[${body}]$`);
    const first = body.startsWith('\\') ? (ESCAPES[body[1]!] ?? body[1]!) : body[0]!;
    const found = [first, ...CANDIDATES].find((candidate) => holds.test(candidate));
    if (found === undefined) throw new Unreadable('a class none of the candidates is in');
    return found;
  }

  /** How many times the atom before it repeats: the least the quantifier allows. */
  private quantifier(): number {
    const char = this.peek();
    let count = 1;
    if (char === '*' || char === '?') count = 0;
    else if (char === '+') count = 1;
    else if (char === '{') {
      const braces = this.pattern.slice(this.at).match(/^\{(\d+)(,\d*)?\}/);
      if (!braces) return 1;
      this.at += braces[0].length - 1;
      count = Number(braces[1]);
    } else return 1;
    this.at++;
    if (this.peek() === '?') this.at++;
    return count;
  }

  private peek(): string | undefined {
    return this.pattern[this.at];
  }
}
