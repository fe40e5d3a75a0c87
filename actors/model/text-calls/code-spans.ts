/** A stretch of quoted code in a reply: a fenced block (with its info string) or an inline code span. */
export interface CodeSpan {
  start: number;
  end: number;
  /** For a fenced block: the info string (`json`, `python`, '' when none) and where its body starts and ends. */
  fence?: { info: string; bodyStart: number; bodyEnd: number };
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})([^\n`]*)$/;

/**
 * Where a reply quotes code: Markdown fenced blocks (an unclosed fence runs
 * to the end, as Markdown renders it) and inline code spans. A call written
 * inside quoted code is an example or a file's content, never a request.
 *
 * @example codeSpans('see `<tool_call>` here') // [{ start: 4, end: 17 }]
 */
export function codeSpans(text: string): CodeSpan[] {
  const spans: CodeSpan[] = [];
  let lineStart = 0;
  let prose = 0;
  while (lineStart <= text.length) {
    const lineEnd = endOfLine(text, lineStart);
    const open = FENCE_OPEN.exec(text.slice(lineStart, lineEnd));
    if (!open) {
      lineStart = lineEnd + 1;
      continue;
    }
    spans.push(...inlineSpans(text, prose, lineStart));
    const marker = open[1]!;
    const bodyStart = Math.min(lineEnd + 1, text.length);
    let close = bodyStart;
    let bodyEnd = text.length;
    let end = text.length;
    while (close < text.length) {
      const closeEnd = endOfLine(text, close);
      const line = text.slice(close, closeEnd).trim();
      if (line.startsWith(marker[0]!.repeat(marker.length)) && /^(`+|~+)$/.test(line)) {
        bodyEnd = close;
        end = closeEnd;
        break;
      }
      close = closeEnd + 1;
    }
    spans.push({ start: lineStart, end, fence: { info: open[2]!.trim().toLowerCase(), bodyStart, bodyEnd } });
    prose = end;
    lineStart = end + 1;
  }
  spans.push(...inlineSpans(text, prose, text.length));
  return spans;
}

function endOfLine(text: string, from: number): number {
  const newline = text.indexOf('\n', from);
  return newline === -1 ? text.length : newline;
}

/** Inline code spans between `from` and `to`: a run of backticks up to the next run of the same length. */
function inlineSpans(text: string, from: number, to: number): CodeSpan[] {
  const spans: CodeSpan[] = [];
  const ticks = /`+/g;
  ticks.lastIndex = from;
  for (let open = ticks.exec(text); open && open.index < to; open = ticks.exec(text)) {
    const run = open[0];
    const closing = new RegExp(`(?<!\`)${run}(?!\`)`, 'g');
    closing.lastIndex = open.index + run.length;
    const close = closing.exec(text);
    if (!close || close.index >= to) continue;
    spans.push({ start: open.index, end: close.index + run.length });
    ticks.lastIndex = close.index + run.length;
  }
  return spans;
}
