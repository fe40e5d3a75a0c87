import type { GraphTransition } from '../server/graph-types.js';
import { shortEvent } from '../server/transition-label.js';
import type { TransitionMatch } from './chart-index.js';
import { num, obj, text, type Entry } from './entries.js';
import { brief, clip, count, millis } from './format.js';

export type Tone =
  | 'start' | 'step' | 'phase' | 'model' | 'tool' | 'failed' | 'stall' | 'refusal' | 'accept'
  | 'warning' | 'context' | 'error' | 'resume' | 'unknown';

/** One row of the event list: a badge, one line of text and a right-aligned figure. */
export interface RowText {
  badge: string;
  tone: Tone;
  text: string;
  meta: string;
}

/**
 * How an entry reads in the event list. Unknown kinds show their raw JSON.
 *
 * @example describeEntry(entry, match).text // 'edit_file stats.js (failed)'
 */
export function describeEntry(entry: Entry, match: TransitionMatch | null): RowText {
  const { data } = entry;
  switch (entry.kind) {
    case 'start': return { badge: 'start', tone: 'start', text: `task: ${clip(text(data, 'task'), 200)}`, meta: text(data, 'model') };
    case 'transition': return describeTransition(data, match);
    case 'model': return describeModel(data);
    case 'tool': return describeTool(data);
    case 'stall': return { badge: 'stall', tone: 'stall', text: `${text(data, 'rule')} (limit ${num(data, 'limit') ?? '?'}) → nudge #${num(data, 'firings') ?? 1}: ${clip(text(data, 'message'), 160)}`, meta: stepMeta(data) };
    case 'finish': return data.allowed === false
      ? { badge: 'gate', tone: 'refusal', text: `gate refused finish${num(data, 'refusals') ? ` (refusal #${num(data, 'refusals')})` : ''}: ${text(data, 'why') || 'no passing test run after the last edit'}`, meta: stepMeta(data) }
      : { badge: 'gate', tone: 'accept', text: `${data.gate === false ? 'finish accepted (gate off)' : 'gate accepted finish'}: ${clip(text(data, 'summary'), 160)}`, meta: stepMeta(data) };
    case 'rule_action': return { badge: 'rule', tone: 'stall', text: `${text(data, 'action')}${Array.isArray(data.notices) && data.notices.length > 0 ? `: ${clip(data.notices.join(' / '), 180)}` : text(data, 'label') ? `: ${text(data, 'label')}` : ''}`, meta: stepMeta(data) };
    case 'budget_warning': return { badge: 'budget', tone: 'warning', text: budgetText(data), meta: stepMeta(data) };
    case 'context': return { badge: 'context', tone: 'context', text: contextText(data), meta: stepMeta(data) };
    case 'retry': return { badge: 'retry', tone: 'error', text: `model call failed, retrying: ${clip(text(data, 'error') || brief(data), 160)}`, meta: '' };
    case 'resume': return { badge: 'resume', tone: 'resume', text: `resumed from ${text(data, 'fromState') || 'the saved state'}`, meta: '' };
    case 'interrupted': return { badge: 'stopped', tone: 'warning', text: `stopped from outside in ${text(data, 'state') || 'the run'} (Ctrl+C or SIGTERM); rein resume continues it`, meta: '' };
    case 'crash': return { badge: 'crash', tone: 'error', text: clip(text(data, 'error') || brief(data), 200), meta: '' };
    case 'end': return { badge: 'end', tone: text(data, 'status') === 'done' ? 'accept' : 'error', text: `${text(data, 'status') || 'ended'} after ${num(data, 'steps') ?? '?'} steps: ${clip(text(data, 'summary') || text(data, 'reason'), 160)}`, meta: '' };
    default: return { badge: clip(entry.kind, 14), tone: 'unknown', text: brief(withoutBookkeeping(data), 220), meta: 'raw' };
  }
}

function describeTransition(data: Record<string, unknown>, match: TransitionMatch | null): RowText {
  const from = text(data, 'from');
  const to = text(data, 'to');
  const phaseChange = from.split('.')[0] !== to.split('.')[0];
  const guard = text(data, 'guard');
  const refused = match?.refused.map((transition) => transition.guard?.name).filter(Boolean) ?? [];
  const why = guard ? `  ✓ ${guard}` : refused.length > 0 ? `  ✗ ${refused.join(', ')}` : '';
  return { badge: phaseChange ? 'phase' : 'step', tone: phaseChange ? 'phase' : 'step', text: `${from || '(start)'} → ${to}${why}`, meta: shortEvent(text(data, 'event')) };
}

function describeModel(data: Record<string, unknown>): RowText {
  const calls = Array.isArray(data.tool_calls) ? data.tool_calls : [];
  const names = calls.map((call) => text(obj(call as Record<string, unknown>, 'function'), 'name')).filter(Boolean);
  const content = text(data, 'content');
  const said = content ? `“${clip(content, 90)}”` : '';
  const asked = names.length > 0 ? `→ ${names.join(', ')}` : 'no tool call';
  const usage = obj(data, 'usage');
  const ms = num(data, 'ms');
  const meta = [`${count(num(usage, 'promptTokens') ?? 0)} in`, `${count(num(usage, 'completionTokens') ?? 0)} out`, ms !== null ? millis(ms) : ''].filter(Boolean).join(' · ');
  return { badge: 'model', tone: 'model', text: [`step ${num(data, 'step') ?? '?'}`, said, asked].filter(Boolean).join('  '), meta };
}

/**
 * A transition's guard as its label shows it, without the event.
 *
 * @example guardLabel(transition) // '[repeatedAction(limit: 3)]' for the label 'done [repeatedAction(limit: 3)]'
 */
export function guardLabel(transition: GraphTransition): string {
  return transition.guard ? transition.label.replace(/^.*?\[/, '[') : transition.label;
}

/** The argument that says what a tool call did: its command, path or pattern. */
export function toolTarget(args: Record<string, unknown>): string {
  if (Array.isArray(args.items)) {
    const done = args.items.filter((item) => (item as { done?: unknown } | null)?.done === true).length;
    return `${args.items.length} items, ${done} done`;
  }
  for (const key of ['command', 'path', 'pattern', 'summary']) if (typeof args[key] === 'string') return clip(args[key] as string, 120);
  return brief(args, 120);
}

function describeTool(data: Record<string, unknown>): RowText {
  const ok = data.ok !== false;
  const ms = num(data, 'ms');
  return { badge: 'tool', tone: ok ? 'tool' : 'failed', text: `${text(data, 'name') || 'tool'} ${toolTarget(obj(data, 'args'))}${ok ? '' : '  (failed)'}`, meta: ms !== null ? millis(ms) : '' };
}

function budgetText(data: Record<string, unknown>): string {
  const budget = text(data, 'budget') || 'a';
  const limit = num(data, 'limit') ?? num(data, 'limitSeconds');
  return `${budget} budget warning${limit !== null ? ` (limit ${count(limit)}${budget === 'time' ? ' s' : ''})` : ''}`;
}

function contextText(data: Record<string, unknown>): string {
  const before = num(obj(data, 'before'), 'tokens');
  const after = num(obj(data, 'after'), 'tokens');
  const sizes = before !== null && after !== null ? `${count(before)} → ${count(after)} tokens` : '';
  switch (text(data, 'action')) {
    case 'elided': return `old tool results elided: ${sizes}`;
    case 'summarize': return `view over the hard limit, summarizing: ${sizes}`;
    case 'summarized': return `summarized: ${count(num(data, 'foldedChars') ?? 0)} chars folded into ${count(num(data, 'summaryChars') ?? 0)}`;
    case 'summary_failed': return `summary failed: ${clip(text(data, 'error'), 140)}`;
    case 'overflow': return `context overflow: the view does not fit the window (${sizes})`;
    case 'provider_rejected_length': return 'the provider rejected the prompt as too long: compacting harder';
    default: return `${text(data, 'action') || 'context'} ${sizes || brief(withoutBookkeeping(data), 140)}`;
  }
}

function stepMeta(data: Record<string, unknown>): string {
  const step = num(data, 'step');
  return step !== null ? `step ${step}` : '';
}

/** The line without the fields every line has. */
export function withoutBookkeeping(data: Record<string, unknown>): Record<string, unknown> {
  const { i: _i, t: _t, kind: _kind, ...rest } = data;
  return rest;
}
