/**
 * The delimiters of the census (docs/endpoints.md, "Tool-call formats rein
 * reads") as families of shapes, not as a list of names: special tokens in
 * angle-pipe (`<|…|>`, Gemma's `<|…>`/`<…|>`), full-width (`<｜…｜>`) and
 * square-bracket (`[TOOL_CALLS]`) form, XML-ish tags, and the few plain-text
 * prefixes some templates use. The recognizer asks only what a token is for:
 * does it mark a call, open or close reasoning, or start a tool's result.
 */

/** A delimiter found in the text: where it is and what it says. */
export interface Token {
  start: number;
  end: number;
  text: string;
}

const TOKEN = new RegExp(
  [
    /<[|｜][^<>\n]{1,48}?[|｜]>/.source, // <|tool_call_begin|>, <｜tool▁sep｜>, <|"|>
    /<\|[A-Za-z_]{1,32}>|<[A-Za-z_]{1,32}\|>/.source, // Gemma 4: <|tool_call>, <tool_call|>, <|channel>
    /\[\/?[A-Z][A-Z_]{1,24}\]/.source, // [TOOL_CALLS], [ARGS], [CALL_ID], [/THINK]
    /<\/?(?:[|｜]DSML[|｜])?[A-Za-z][\w:.-]{0,40}(?:\s+[\w:.-]+="[^"\n]{0,200}")*\s*\/?>/.source, // <tool_call>, <invoke name="f">, </｜DSML｜parameter>
    /<[A-Za-z_]{1,24}=[^<>\n]{1,120}>/.source, // <function=NAME>, <parameter=KEY>
    /\bfunctools(?=\s*\[)|\bfunction call(?=<)|^Action:(?= *```)|>>>/.source, // plain-text prefixes
  ].join('|'),
  'gm',
);

/**
 * Every delimiter in the text, in order.
 *
 * @example tokensOf('a<tool_call>{}</tool_call>').map((token) => token.text) // ['<tool_call>', '</tool_call>']
 */
export function tokensOf(text: string): Token[] {
  const tokens: Token[] = [];
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(text); match; match = TOKEN.exec(text)) {
    tokens.push({ start: match.index, end: match.index + match[0].length, text: match[0] });
    if (match[0].length === 0) TOKEN.lastIndex++;
  }
  return tokens;
}

/** A token's text folded for matching: full-width bars and `▁` made ASCII, lower case. */
export function folded(text: string): string {
  return text.replace(/｜/g, '|').replace(/▁/g, '_').toLowerCase();
}

const CALL_WORDS = /tool|function|call|action|invoke|plugin|python_(?:tag|start)|functools|>>>/;
const RESULT_WORDS = /tool_?(?:response|output|result)|function_?(?:response|output|result)|<\|start\|>functions\./;

/** Whether a token marks a call (`<tool_call>`, `[TOOL_CALLS]`, `<|START_ACTION|>`, `<｜tool▁sep｜>`), rather than a tool's result. */
export function marksCall(token: Token): boolean {
  const text = folded(token.text);
  return CALL_WORDS.test(text) && !RESULT_WORDS.test(text);
}

/** Whether a token starts a tool's result: a model that writes one is making it up (`<tool_response>`, `<｜tool▁outputs▁begin｜>`). */
export function startsResult(token: Token): boolean {
  return RESULT_WORDS.test(folded(token.text)) && !folded(token.text).startsWith('</');
}

/** End-of-turn and stop tokens that may close a reply after its calls. */
export function isStopToken(token: Token): boolean {
  return /^<[|｜](?:eom_id|eot_id|end|return|call|im_end|end_of_turn|end▁of▁sentence|end_of_sentence)[|｜]>$|^<\/s>$/.test(token.text);
}

/** A stretch of reasoning: its open tag (or the reply's start, when the template opened it), to its close (or the end). */
export interface Span {
  start: number;
  end: number;
}

/** Reasoning markers as the families write them: open, close, and whether a template may open the block in the prompt. */
const REASONING: ReadonlyArray<{ open: RegExp; close: RegExp; openedByTemplate: boolean }> = [
  { open: /<think>/g, close: /<\/think>/g, openedByTemplate: true },
  { open: /<thinking>/g, close: /<\/thinking>/g, openedByTemplate: false },
  { open: /<seed:think>/g, close: /<\/seed:think>/g, openedByTemplate: true },
  { open: /\[THINK\]/g, close: /\[\/THINK\]/g, openedByTemplate: true },
  { open: /<\|START_THINKING\|>/g, close: /<\|END_THINKING\|>/g, openedByTemplate: true },
  { open: /<\|inner_prefix\|>/g, close: /<\|inner_suffix\|>/g, openedByTemplate: false },
  { open: /<\|channel>/g, close: /<channel\|>/g, openedByTemplate: false },
  // Harmony's analysis channel runs to its <|end|> (or the next message).
  { open: /<\|channel\|>analysis<\|message\|>/g, close: /<\|end\|>|<\|start\|>/g, openedByTemplate: false },
];

/**
 * Where the reply reasons rather than acts. A close with no open before it
 * (the template opened the block in the prompt) makes everything before it reasoning.
 *
 * @example reasoningSpans('<think>maybe run</think>\nok') // [{ start: 0, end: 24 }]
 */
export function reasoningSpans(text: string): Span[] {
  const spans: Span[] = [];
  for (const { open, close, openedByTemplate } of REASONING) {
    let at = 0;
    let first = openedByTemplate;
    for (;;) {
      open.lastIndex = at;
      close.lastIndex = at;
      const opened = open.exec(text);
      const closed = close.exec(text);
      if (first && closed && (!opened || closed.index < opened.index)) {
        spans.push({ start: 0, end: closed.index + closed[0].length });
        at = closed.index + closed[0].length;
        first = false;
        continue;
      }
      first = false;
      if (!opened) break;
      close.lastIndex = opened.index + opened[0].length;
      const end = close.exec(text);
      const stop = end ? end.index + end[0].length : text.length;
      spans.push({ start: opened.index, end: stop });
      at = stop;
      if (!end) break;
    }
  }
  return spans;
}
