import { closestName } from '../../../lib/did-you-mean.js';
import type { Candidate, Scan } from './candidates.js';
import type { CodeSpan } from './code-spans.js';
import { isStopToken, marksCall, type Span, startsResult, type Token } from './markup.js';
import type { NotRunReason, Recovery } from './types.js';

/** What the guard judges the candidates against. */
interface Judging {
  scan: Scan;
  /** Quoted code (fences, inline spans), found with the candidates masked out. */
  spans: readonly CodeSpan[];
  reasoning: readonly Span[];
  /** Text the model was shown from files, tool results and the user, white space collapsed: a call repeated from it is not run. */
  echoes: readonly string[];
  /** Only calls the syntax marks as calls count (the endpoint has sent native calls this run). */
  markedOnly: boolean;
}

/** Consecutive candidates with nothing but delimiters between them: one structure, judged together. */
interface Block {
  candidates: Candidate[];
  /** From the delimiters before the first call to those after the last. */
  start: number;
  end: number;
  marked: boolean;
  label: string;
}

/**
 * Which candidates run. Nothing quoted as code runs, nor anything in
 * reasoning, after a tool result the model made up, or repeated from what
 * it was shown. A call the syntax marks (a call token, `<function=…>`,
 * `to=functions.…`) runs where it stands, unless text goes on after it on
 * the same line (then it is part of a sentence: the model is asked). An
 * unmarked one (bare JSON, a Python list, a fence) runs only when its line
 * holds nothing else before it and nothing but calls follow it to the end;
 * on a line of its own with more text after, the model is asked. Names must
 * be the run's tools, except in marked calls, where the tool runner answers
 * an unknown one with the nearest name.
 */
export function judgeCandidates(candidates: readonly Candidate[], judging: Judging): Recovery {
  const { scan } = judging;
  const recovery: Recovery = { calls: [], content: null, formats: [], ignored: [], notRun: [] };
  const live = candidates.filter((candidate) => !quoted(candidate, judging.spans)).sort((a, b) => a.start - b.start);
  const acting = live.filter((candidate) => !inside(judging.reasoning, candidate.start));
  const cut = resultCut(scan, acting, judging);
  const active: Candidate[] = [];
  for (const [index, candidate] of live.entries()) {
    const why: NotRunReason | null = inside(judging.reasoning, candidate.start)
      ? 'reasoning'
      : candidate.start >= cut
        ? 'after-result'
        : echoed(echoExtent(scan, live, index), judging.echoes)
          ? 'echo'
          : null;
    if (!why) active.push(candidate);
    else if (why !== 'reasoning' || candidate.marked || markedBefore(scan, candidate.start)) hold(recovery, candidate, why, { scan });
  }
  const kept: Block[] = [];
  for (const block of blocksOf(active, scan, cut)) {
    const unknown = block.marked ? [] : block.candidates.filter((candidate) => candidate.calls.some((call) => !scan.offered.has(call.name)));
    listUnknown(recovery, unknown, block.label, scan);
    // Unmarked, every name must be a tool of the run: `[print(x=1), run(…)]` is code, not calls.
    const verdict =
      unknown.length > 0
        ? judgeBlock(block, scan, cut, judging.markedOnly) === 'prose'
          ? 'prose'
          : 'mixed'
        : judgeBlock(block, scan, cut, judging.markedOnly);
    if (verdict === 'run') kept.push(block);
    else if (verdict !== 'prose') for (const candidate of block.candidates) hold(recovery, candidate, verdict, { scan, label: block.label });
  }
  for (const block of kept) {
    const format = `${block.label}+${block.candidates[0]!.encoding}`;
    for (const candidate of block.candidates)
      for (const call of candidate.calls) if (block.marked || scan.offered.has(call.name)) recovery.calls.push({ ...call, format });
    if (!recovery.formats.includes(format)) recovery.formats.push(format);
  }
  recovery.content = textOutside(scan.text, kept, recovery.calls.length > 0 ? cut : scan.text.length);
  return recovery;
}

function judgeBlock(block: Block, scan: Scan, cut: number, markedOnly: boolean): 'run' | 'prose' | NotRunReason {
  // The rest of the line the call's last delimiter ends on (`</tool_call>` may be a line below its JSON).
  const closed = solidGlueEnd(scan, block.candidates.at(-1)!.end, cut);
  const after = scan.text.slice(closed, Math.min(cut, lineEnd(scan.text, closed)));
  if (block.marked) return after.trim() === '' ? 'run' : 'inline';
  if (markedOnly) return 'prose';
  const first = block.candidates[0]!;
  const lineBegin = scan.text.lastIndexOf('\n', first.start - 1) + 1;
  if (glueStart(scan, first.start, lineBegin) !== lineBegin && !first.fence) return 'prose';
  return scan.text.slice(block.end, cut).trim() === '' ? 'run' : 'position';
}

function hold(recovery: Recovery, candidate: Candidate, why: NotRunReason, context: { scan: Scan; label?: string }): void {
  const { scan, label = candidate.label } = context;
  for (const call of candidate.calls)
    if (candidate.marked || scan.offered.has(call.name)) recovery.notRun.push({ format: `${label}+${candidate.encoding}`, name: call.name.slice(0, 80), why });
}

/** Unmarked calls that name no tool of the run: left as text, listed for the trace with the nearest name. */
function listUnknown(recovery: Recovery, candidates: readonly Candidate[], label: string, scan: Scan): void {
  const names = [...scan.offered];
  for (const candidate of candidates)
    for (const call of candidate.calls) {
      if (scan.offered.has(call.name)) continue;
      const near = closestName(call.name, names);
      recovery.ignored.push({ format: `${label}+${candidate.encoding}`, name: call.name.slice(0, 80), ...(near ? { didYouMean: near } : {}) });
    }
}

function quoted(candidate: Candidate, spans: readonly CodeSpan[]): boolean {
  return spans.some((span) => span !== candidate.fence && candidate.start >= span.start && candidate.start < span.end);
}

function inside(spans: readonly Span[], at: number): boolean {
  return spans.some((span) => at >= span.start && at < span.end);
}

/** Where a tool result the model made up starts (after its first call): nothing from there on runs. */
function resultCut(scan: Scan, acting: readonly Candidate[], judging: Judging): number {
  const first = acting[0];
  if (!first) return scan.text.length;
  const token = scan.tokens.find(
    (entry) =>
      entry.start >= first.end &&
      // Inside a call is an argument's text (a file being written), not a result.
      !acting.some((candidate) => entry.start >= candidate.start && entry.start < candidate.end) &&
      // Harmony: a message from a tool (`<|start|>functions.f to=assistant`).
      (startsResult(entry) || (entry.text === '<|start|>' && scan.text.startsWith('functions.', entry.end))) &&
      !inside(judging.reasoning, entry.start) &&
      !inside(judging.spans, entry.start),
  );
  return token?.start ?? scan.text.length;
}

/**
 * The call as the model wrote it, with the delimiter that opens it (`<tool_call>`), so it is compared with what
 * the model was shown as a whole: JSON that merely equals a file's data is not taken for a copy of it.
 */
function echoExtent(scan: Scan, live: readonly Candidate[], index: number): { opener: string; body: string } {
  const candidate = live[index]!;
  const from = glueStart(scan, candidate.start, index > 0 ? live[index - 1]!.end : 0);
  return { opener: collapse(scan.text.slice(from, candidate.start)), body: collapse(scan.text.slice(candidate.start, candidate.end)) };
}

/** How far before a copied call its opening delimiter may stand in what the model was shown (a line number, a path, between). */
const OPENER_REACH = 40;

/**
 * Whether the call appears, white space aside, in what the model was shown: its text, and when the model opened
 * it with a delimiter, that delimiter shortly before it there too (a file read back is numbered line by line).
 */
function echoed(call: { opener: string; body: string }, echoes: readonly string[]): boolean {
  if (call.body.length === 0) return false;
  return echoes.some((source) => {
    for (let at = source.indexOf(call.body); at >= 0; at = source.indexOf(call.body, at + 1))
      if (call.opener === '' || source.slice(Math.max(0, at - call.opener.length - OPENER_REACH), at).includes(call.opener)) return true;
    return false;
  });
}

/** White space collapsed to single spaces, as the echo check compares. */
export function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Candidates grouped where only delimiters, white space and separators stand between them. */
function blocksOf(candidates: readonly Candidate[], scan: Scan, cut: number): Block[] {
  const blocks: Block[] = [];
  for (const candidate of [...candidates].sort((a, b) => a.start - b.start)) {
    if (candidate.start >= cut) continue;
    const last = blocks.at(-1);
    if (last && glueEnd(scan, last.candidates.at(-1)!.end, candidate.start) === candidate.start) {
      last.candidates.push(candidate);
      continue;
    }
    blocks.push({ candidates: [candidate], start: candidate.start, end: candidate.end, marked: false, label: '' });
  }
  blocks.forEach((block, index) => {
    const floor = index > 0 ? blocks[index - 1]!.candidates.at(-1)!.end : 0;
    const next = blocks[index + 1];
    const ceiling = next ? next.candidates[0]!.start : cut;
    block.start = glueStart(scan, block.candidates[0]!.start, floor);
    block.end = glueEnd(scan, block.candidates.at(-1)!.end, ceiling);
    const callTokens = scan.tokens.filter(
      (token) => token.start >= block.start && token.end <= block.end && marksCall(token) && !withinCandidate(block, token),
    );
    block.marked = block.candidates.some((candidate) => candidate.marked) || callTokens.length > 0;
    const first = block.candidates[0]!;
    block.label = callTokens.find((token) => token.end <= first.start)?.text ?? first.label;
  });
  return blocks;
}

function withinCandidate(block: Block, token: Token): boolean {
  return block.candidates.some((candidate) => token.start >= candidate.start && token.end <= candidate.end);
}

const GLUE_WORDS = /^(?:function|assistant|commentary|json)\b/;

/** How far delimiters, white space, separators and the census's header words run from `at` (up to `ceiling`). */
function glueEnd(scan: Scan, at: number, ceiling: number): number {
  let position = at;
  while (position < ceiling) {
    const char = scan.text[position]!;
    const token = scan.tokenAt.get(position);
    const word = GLUE_WORDS.exec(scan.text.slice(position, position + 12));
    if (/[\s;,]/.test(char)) position++;
    else if (token && glueToken(token) && token.end <= ceiling) position = token.end;
    else if (word) position += word[0].length;
    else if (scan.text.startsWith('```', position)) position += 3;
    else break;
  }
  return position;
}

/** How far delimiters, white space and header words run back from `at` (down to `floor`). */
function glueStart(scan: Scan, at: number, floor: number): number {
  let position = at;
  while (position > floor) {
    const char = scan.text[position - 1]!;
    const token = scan.tokenEnd.get(position);
    const word = /(?:function|assistant|commentary)$/.exec(scan.text.slice(Math.max(floor, position - 12), position));
    if (/[\s;,]/.test(char)) position--;
    else if (token && glueToken(token) && token.start >= floor) position = token.start;
    else if (word && scan.tokenEnd.has(position - word[0].length)) position -= word[0].length;
    else break;
  }
  return position;
}

/** Delimiters that belong to the calls around them: not reasoning's, not a tool result's. */
function glueToken(token: Token): boolean {
  return (
    !startsResult(token) &&
    !/think|inner_|<\|channel>|<channel\|>/i.test(token.text) &&
    (marksCall(token) || isStopToken(token) || /^<[|｜]|^\[|^<\//.test(token.text))
  );
}

/** Whether a call token stands in the delimiters right before `at` (`function call<|role_sep|>`, `<tool_call>`). */
function markedBefore(scan: Scan, at: number): boolean {
  const from = glueStart(scan, at, 0);
  return scan.tokens.some((token) => token.start >= from && token.end <= at && marksCall(token));
}

/** Where the last delimiter or header word after `at` ends (white space after it not counted). */
function solidGlueEnd(scan: Scan, at: number, ceiling: number): number {
  const end = glueEnd(scan, at, ceiling);
  let solid = end;
  while (solid > at && /[\s;,]/.test(scan.text[solid - 1]!)) solid--;
  return solid;
}

function lineEnd(text: string, from: number): number {
  const newline = text.indexOf('\n', from);
  return newline === -1 ? text.length : newline;
}

/** The reply's text without the blocks that run (and without anything after a made-up tool result), trimmed; null when nothing is left. */
function textOutside(text: string, blocks: readonly Block[], until: number): string | null {
  let out = '';
  let at = 0;
  for (const block of blocks) {
    out += text.slice(at, block.start);
    at = block.end;
  }
  out += text.slice(at, Math.max(at, until));
  const trimmed = out.replace(/\n{3,}/g, '\n\n').trim();
  return trimmed === '' ? null : trimmed;
}
