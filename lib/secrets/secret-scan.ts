import { PRIVATE_KEY_HEADER, SECRET_FORMATS, type SecretFormat } from './secret-formats.js';

/** Where a secret was masked: its kind and position in the text as it was, never the value. */
export interface SecretFinding {
  kind: string;
  /** 1-based line and column of the secret's first character. */
  line: number;
  column: number;
}

interface MaskResult {
  text: string;
  findings: SecretFinding[];
}

/** Head and tail lengths of a known key that are masked on their own (providers echo keys partly masked). */
const KEY_HEAD = 12;
const KEY_TAIL = 8;

interface Span {
  start: number;
  end: number;
  kind: string;
}

/**
 * Masks every well-known secret format (`SECRET_FORMATS`: private key blocks,
 * cloud keys, provider and forge tokens, credentials in URLs) and every
 * occurrence of a known secret (the endpoint's key, also its first 12 and last
 * 8 characters) in `text`. A known secret becomes `[redacted]`, a format
 * `[redacted: <kind>]`. Overlapping matches are merged, so a key inside a
 * masked block is not reported twice.
 *
 * @example maskSecrets('token ghp_…', []) // { text: 'token [redacted: github-token]', findings: [{ kind: 'github-token', line: 1, column: 7 }] }
 */
export function maskSecrets(text: string, known: readonly (string | undefined)[] = [], formats: readonly SecretFormat[] = SECRET_FORMATS): MaskResult {
  const spans = mergeSpans([...knownSpans(text, known), ...privateKeySpans(text), ...formatSpans(text, formats)]);
  if (spans.length === 0) return { text, findings: [] };
  let masked = '';
  let at = 0;
  for (const span of spans) {
    masked += text.slice(at, span.start) + (span.kind === 'endpoint-key' ? '[redacted]' : `[redacted: ${span.kind}]`);
    at = span.end;
  }
  masked += text.slice(at);
  return { text: masked, findings: spans.map((span) => ({ kind: span.kind, ...positionOf(text, span.start) })) };
}

/**
 * The part of a secret that began in `before` (what precedes `text` in the same file or stream: a private key whose
 * header was in the part already read) masked where it goes on in `text`; secrets wholly inside `text` are left for
 * `maskSecrets`, which masks and reports them. Lines stay lines: every line a secret covers keeps its place and shows the marker, so a numbered window
 * still lines up with the file.
 *
 * @example maskLinesAfter('-----BEGIN RSA PRIVATE KEY-----\n', 'MIIE…\n-----END RSA PRIVATE KEY-----\nok') // '[redacted: private-key]\n[redacted: private-key]\nok'
 */
export function maskLinesAfter(before: string, text: string, formats: readonly SecretFormat[] = SECRET_FORMATS): string {
  const whole = before + text;
  const spans = mergeSpans([...privateKeySpans(whole), ...formatSpans(whole, formats)]);
  let masked = '';
  let at = before.length;
  for (const span of spans) {
    // A secret wholly inside `text` is left for maskSecrets, which also reports where it was.
    if (span.end <= at || span.start >= before.length) continue;
    const start = Math.max(span.start, at);
    const marker = `[redacted: ${span.kind}]`;
    masked +=
      whole.slice(at, start) +
      whole
        .slice(start, span.end)
        .split('\n')
        .map((piece) => (piece.trim() === '' ? piece : marker))
        .join('\n');
    at = span.end;
  }
  return masked + whole.slice(at);
}

function knownSpans(text: string, known: readonly (string | undefined)[]): Span[] {
  const spans: Span[] = [];
  for (const secret of known) {
    if (!secret || secret.length < 6) continue;
    const pieces = secret.length >= 16 ? [secret, secret.slice(0, KEY_HEAD), secret.slice(-KEY_TAIL)] : [secret];
    for (const piece of pieces) {
      for (let at = text.indexOf(piece); at !== -1; at = text.indexOf(piece, at + piece.length)) {
        spans.push({ start: at, end: at + piece.length, kind: 'endpoint-key' });
      }
    }
  }
  return spans;
}

/**
 * Private key blocks: from the header to its END line; a block cut short
 * (head+tail truncation, a partial read) to the last line that can belong to
 * a key body (base64, `Name: value` headers, blank lines). Lines may be
 * separated by real newlines or by `\n` escapes (a key inside JSON).
 */
function privateKeySpans(text: string): Span[] {
  const spans: Span[] = [];
  for (const match of text.matchAll(PRIVATE_KEY_HEADER)) {
    const start = match.index;
    const endLine = `-----END ${match[1]}PRIVATE KEY${match[2] ?? ''}-----`;
    const end = text.indexOf(endLine, start);
    const next = text.indexOf('-----BEGIN ', start + 1);
    if (end !== -1 && (next === -1 || end < next)) {
      spans.push({ start, end: end + endLine.length, kind: 'private-key' });
      continue;
    }
    let at = start + match[0].length;
    for (;;) {
      const line = /^(?:\r?\n|\\n)([^\n\\]*)/.exec(text.slice(at, at + 4096));
      if (!line || !/^[ \t]*(?:[A-Za-z0-9+/=]*|[A-Za-z-]+: .*)[ \t\r]*$/.test(line[1]!)) break;
      at += line[0].length;
    }
    spans.push({ start, end: at, kind: 'private-key' });
  }
  return spans;
}

function formatSpans(text: string, formats: readonly SecretFormat[]): Span[] {
  const spans: Span[] = [];
  for (const format of formats) {
    format.pattern.lastIndex = 0;
    for (const match of text.matchAll(format.pattern)) {
      const value = match[format.group ?? 0];
      if (!value) continue;
      const start = match.index + (format.group ? match[0].indexOf(value) : 0);
      spans.push({ start, end: start + value.length, kind: format.kind });
    }
  }
  return spans;
}

/** Sorted, non-overlapping spans; where two overlap, the union keeps the kind of the one that starts first. */
function mergeSpans(spans: Span[]): Span[] {
  const sorted = spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Span[] = [];
  for (const span of sorted) {
    const last = merged.at(-1);
    if (last && span.start < last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}

function positionOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) {
    line += 1;
    lineStart = at + 1;
  }
  return { line, column: offset - lineStart + 1 };
}
