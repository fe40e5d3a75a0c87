import { phraseGuard } from '../server/guard-phrases.js';
import { num, obj, text } from './entries.js';
import { brief, clip, count } from './format.js';

/** Hints a line does not carry itself, from the lines before it. */
export interface RowHints {
  /** Characters per token the run's context manager last reported, to give a summary's size in tokens like every other context figure. */
  charsPerToken?: number | null;
}

/**
 * A stall line as a person says it: the rule that fired and what it saw,
 * the count against its limit, and which nudge this is.
 *
 * @example stallText({ rule: 'readLoop', limit: 8, count: 8, firings: 1, maxNudges: 3 }) // 'readLoop: 8 reads or searches in a row with no edit (8/8) → nudge 1 of 3'
 */
export function stallText(data: Record<string, unknown>): string {
  const rule = text(data, 'rule') || 'stall';
  const limit = num(data, 'limit');
  const seen = num(data, 'count');
  const reason = text(data, 'reason') || (limit !== null ? phraseGuard({ name: rule, params: { limit } }) : '');
  const against = limit !== null ? ` (${seen ?? limit}/${limit})` : '';
  const firings = num(data, 'firings') ?? 1;
  const nudges = num(data, 'maxNudges');
  return `${rule}${reason && reason !== rule ? `: ${reason}` : ''}${against} → nudge ${firings}${nudges !== null ? ` of ${nudges}` : ''}`;
}

const PROGRESS_WORDS: Record<string, string> = {
  newInfo: 'new output',
  newFileState: 'a file state not seen before',
  todoChange: 'todo list changed',
  testChange: 'test result changed',
};

/**
 * What a turn's results made new, as the stall detector counted it: each
 * result by its tool, with the kinds of progress in words.
 *
 * @example progressText({ results: [{ name: 'run', kinds: ['newInfo', 'testChange'] }] }) // 'new to the stall detector: run: new output, test result changed'
 */
export function progressText(data: Record<string, unknown>): string {
  const results = Array.isArray(data.results)
    ? data.results.filter((result): result is Record<string, unknown> => result !== null && typeof result === 'object')
    : [];
  const said = results.map((result) => {
    const kinds = Array.isArray(result.kinds) ? result.kinds.map((kind) => PROGRESS_WORDS[String(kind)] ?? String(kind)) : [];
    return `${text(result, 'name') || 'tool'}: ${kinds.join(', ')}`;
  });
  return `new to the stall detector: ${said.join('; ') || 'nothing'}`;
}

/** A gate decision: refused (with why and which refusal) or accepted. */
export function finishText(data: Record<string, unknown>): string {
  if (data.allowed === false) {
    const refusals = num(data, 'refusals');
    return `gate refused finish${refusals ? ` #${refusals}` : ''}: ${text(data, 'why') || 'no passing test run after the last edit'}`;
  }
  return `${data.gate === false ? 'finish accepted (gate off)' : 'gate accepted finish'}: ${clip(text(data, 'summary'), 160)}`;
}

/** How a run ended, with the stall rule or the reason when it did not finish. */
export function endText(data: Record<string, unknown>): string {
  const status = text(data, 'status') || 'ended';
  const rule = text(data, 'rule');
  const why = rule ? `${rule}: ${text(data, 'reason')}` : text(data, 'summary') || text(data, 'reason');
  return `${status} after ${num(data, 'steps') ?? '?'} steps${why ? `: ${clip(why, 160)}` : ''}`;
}

export function budgetText(data: Record<string, unknown>): string {
  const budget = text(data, 'budget') || 'a';
  const limit = num(data, 'limit') ?? num(data, 'limitSeconds');
  return `${budget} budget warning${limit !== null ? ` (limit ${count(limit)}${budget === 'time' ? ' s' : budget === 'steps' ? ' steps' : ''})` : ''}`;
}

/** A context action, every size in tokens (a summary's characters converted with the run's own ratio). */
export function contextText(data: Record<string, unknown>, hints: RowHints = {}): string {
  const before = num(obj(data, 'before'), 'tokens');
  const after = num(obj(data, 'after'), 'tokens');
  const sizes = before !== null && after !== null ? `${count(before)} → ${count(after)} tokens` : '';
  switch (text(data, 'action')) {
    case 'elided':
      return `old tool results elided: ${sizes}`;
    case 'summarize':
      return `view over the hard limit, summarizing: ${sizes}`;
    case 'summarized':
      return `summarized: ${summarySize(data, hints.charsPerToken ?? null)}`;
    case 'summary_failed':
      return `summary failed: ${clip(text(data, 'error'), 140)}`;
    case 'overflow':
      return `context overflow: the view does not fit the window (${sizes})`;
    case 'provider_rejected_length':
      return rejectedText(data);
    default:
      return `${text(data, 'action') || 'context'} ${sizes || brief(data, 140)}`;
  }
}

function summarySize(data: Record<string, unknown>, charsPerToken: number | null): string {
  const folded = num(data, 'foldedChars') ?? 0;
  const summary = num(data, 'summaryChars') ?? 0;
  if (!charsPerToken || charsPerToken <= 0) return `old turns folded into a summary (${count(folded)} → ${count(summary)} chars)`;
  return `old turns folded into a summary: ≈${count(Math.ceil(folded / charsPerToken))} → ≈${count(Math.ceil(summary / charsPerToken))} tokens`;
}

function rejectedText(data: Record<string, unknown>): string {
  const rejected = num(data, 'rejectedTokens');
  const cap = num(data, 'windowCap');
  const attempt = num(data, 'attempt');
  const prompt = rejected !== null ? `a ${count(rejected)}-token prompt` : 'the prompt';
  return `the provider rejected ${prompt} as too long${cap !== null ? `: window now ${count(cap)} tokens` : ''}, compacting harder${attempt ? ` (try ${attempt})` : ''}`;
}
