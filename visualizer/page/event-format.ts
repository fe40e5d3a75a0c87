import { type EffectDataReaders, readEffectData } from 'rein/formats';
import { agentText } from './agent-links.js';
import type { TransitionMatch } from './chart-index.js';
import { type Entry, num, obj, text } from './entries.js';
import { brief, clip, count, millis } from './format.js';
import { budgetText, contextText, endText, finishText, progressText, type RowHints, stallText } from './harness-events.js';
import { isBlocked } from './marks.js';

type Tone =
  | 'start'
  | 'step'
  | 'phase'
  | 'model'
  | 'tool'
  | 'failed'
  | 'blocked'
  | 'stall'
  | 'refusal'
  | 'accept'
  | 'warning'
  | 'context'
  | 'error'
  | 'resume'
  | 'unknown';

/** One row of the event list: a badge, one line of text and a right-aligned figure. */
export interface RowText {
  badge: string;
  tone: Tone;
  text: string;
  meta: string;
  /** The full story for the row's tooltip. */
  title?: string;
}

/**
 * How an entry reads in the event list. Unknown kinds show their raw JSON.
 *
 * @example describeEntry(entry, match).text // 'edit_file stats.js → rejected'
 */
export function describeEntry(entry: Entry, match: TransitionMatch | null, hints: RowHints = {}): RowText {
  const { data } = entry;
  const step = stepMeta(data);
  switch (entry.kind) {
    case 'start':
      return { badge: 'start', tone: 'start', text: `task: ${clip(text(data, 'task'), 200)}`, meta: text(data, 'model') };
    case 'transition':
      return describeTransition(data, match);
    case 'model':
      return describeModel(data);
    case 'calls_recovered':
      return { badge: 'recovered', tone: 'model', text: recoveredText(data), meta: step };
    case 'call_ids':
      return { badge: 'ids', tone: 'model', text: callIdsText(data), meta: step };
    case 'arguments_repaired':
      return {
        badge: 'repaired',
        tone: 'warning',
        text: `${text(data, 'name')} arguments: ${text(data, 'repair')}`,
        meta: step,
        title: `as sent: ${clip(text(data, 'original'), 400)}`,
      };
    case 'tool_calling':
      return { badge: 'tools', tone: 'warning', text: `switched to prompted tool calling: ${clip(text(data, 'why'), 160)}`, meta: step };
    case 'repository_instructions':
      return {
        badge: 'repo',
        tone: 'start',
        text: `read ${text(data, 'path')} (${num(data, 'givenChars') ?? 0} chars${data.truncated === true ? ', cut' : ''})`,
        meta: '',
      };
    case 'host_files':
      return { badge: 'host files', tone: 'warning', text: hostFilesText(data), meta: '' };
    case 'tool':
      return describeTool(data);
    case 'agent': {
      const ended = text(data, 'event') === 'end';
      const tone = !ended ? (text(data, 'event') === 'refused' ? 'refusal' : 'start') : text(data, 'status') === 'done' ? 'accept' : 'warning';
      return { badge: 'agent', tone, text: agentText(data), meta: text(data, 'child') };
    }
    case 'stall':
      return { badge: 'stall', tone: 'stall', text: stallText(data), meta: step, title: `${stallText(data)}\nnudge sent: ${text(data, 'message')}` };
    case 'progress':
      return { badge: 'progress', tone: 'step', text: progressText(data), meta: step };
    case 'finish':
      return { badge: 'gate', tone: data.allowed === false ? 'refusal' : 'accept', text: finishText(data), meta: step };
    case 'rule_action':
      return {
        badge: 'rule',
        tone: 'stall',
        text: `${text(data, 'action')}${Array.isArray(data.notices) && data.notices.length > 0 ? `: ${clip(data.notices.join(' / '), 180)}` : text(data, 'label') ? `: ${text(data, 'label')}` : ''}`,
        meta: step,
      };
    case 'budget_warning':
      return { badge: 'budget', tone: 'warning', text: budgetText(data), meta: step };
    case 'context':
      return { badge: 'context', tone: 'context', text: contextText(data, hints), meta: step };
    case 'retry':
      return { badge: 'retry', tone: 'error', text: `model call failed, retrying: ${clip(text(data, 'error') || brief(data), 160)}`, meta: '' };
    case 'resume':
      return { badge: 'resume', tone: 'resume', text: `resumed from ${text(data, 'fromState') || 'the saved state'}`, meta: '' };
    case 'interrupted':
      return {
        badge: 'stopped',
        tone: 'warning',
        text: `stopped from outside in ${text(data, 'state') || 'the run'} (Ctrl+C or SIGTERM); rein resume continues it`,
        meta: '',
      };
    case 'crash':
      return { badge: 'crash', tone: 'error', text: clip(text(data, 'error') || brief(data), 200), meta: '' };
    case 'job':
      return { badge: 'job', tone: 'step', text: jobText(data), meta: '' };
    case 'secrets_masked':
      return { badge: 'masked', tone: 'warning', text: maskedText(data), meta: step };
    case 'mcp_server':
      return mcpServerRow(data);
    case 'mcp_tools':
      return mcpToolsRow(data);
    case 'end':
      return { badge: 'end', tone: text(data, 'status') === 'done' ? 'accept' : 'error', text: endText(data), meta: '' };
    case 'approval_ask':
      return { badge: 'ask', tone: 'warning', text: `${text(data, 'tool')} waits for an approval: ${clip(text(data, 'reason'), 160)}`, meta: step };
    case 'approval_decision': {
      const waited = typeof data.waitedMs === 'number' ? ` after ${Math.round(data.waitedMs / 100) / 10} s` : '';
      const said = text(data, 'message') ? `: ${clip(text(data, 'message'), 140)}` : '';
      const verdict = data.verdict === 'allow' ? 'approved' : 'denied';
      return {
        badge: verdict,
        tone: data.verdict === 'allow' ? 'accept' : 'refusal',
        text: `${text(data, 'tool')} ${verdict} by ${text(data, 'by')}${waited}${said}`,
        meta: step,
      };
    }
    case 'hook': {
      const outcome = text(data, 'problem')
        ? `problem: ${text(data, 'problem')}`
        : `exit ${String(data.exitCode)}${text(data, 'decision') ? `, ${text(data, 'decision')}` : ''}`;
      return {
        badge: 'hook',
        tone: text(data, 'problem') ? 'error' : 'step',
        // Where it ran, for traces that say (older ones do not): a host hook is the one outside the sandbox.
        text: `${text(data, 'moment')}${text(data, 'where') ? ` (${text(data, 'where')})` : ''} ${clip(text(data, 'command'), 80)} → ${outcome}`,
        meta: step,
      };
    }
    default:
      return { badge: clip(entry.kind, 14), tone: 'unknown', text: brief(withoutBookkeeping(data), 220), meta: 'raw' };
  }
}

/** A transition: between phases `plan → build`, inside one `build: compact → think`, with the guard that held or the ones that refused first. */
function describeTransition(data: Record<string, unknown>, match: TransitionMatch | null): RowText {
  const from = text(data, 'from');
  const to = text(data, 'to');
  const [fromPhase, ...fromRest] = from.split('.');
  const [toPhase, ...toRest] = to.split('.');
  const phaseChange = fromPhase !== toPhase;
  const guard = text(data, 'guard');
  const refused = match?.refused.map((transition) => transition.guard?.name).filter(Boolean) ?? [];
  const why = guard ? `  ✓ ${guard}` : refused.length > 0 ? `  ✗ ${refused.join(', ')} → else` : '';
  const moved = !from
    ? `(start) → ${to}`
    : phaseChange
      ? `${fromPhase} → ${toPhase}`
      : `${fromPhase}: ${fromRest.join('.') || fromPhase} → ${toRest.join('.') || toPhase}`;
  return {
    badge: phaseChange ? 'phase' : 'step',
    tone: phaseChange ? 'phase' : 'step',
    text: `${moved}${why}`,
    meta: '',
    title: `${from || '(start)'} → ${to} ${data.eventless === true ? `eventless, after ${text(data, 'event')}` : `on ${text(data, 'event')}`}${Array.isArray(data.actions) && data.actions.length > 0 ? ` / ${data.actions.join(', ')}` : ''}`,
  };
}

function recoveredText(data: Record<string, unknown>): string {
  const calls = Array.isArray(data.calls) ? (data.calls as Array<Record<string, unknown>>) : [];
  const shapes = Array.isArray(data.shapes) ? data.shapes.join(', ') : '';
  const notRun = Array.isArray(data.notRun) ? (data.notRun as Array<Record<string, unknown>>) : [];
  // Calls the reply wrote that were not run (in reasoning, repeated from a file, …): the model was asked about them.
  const asked = notRun.length > 0 ? `not run: ${notRun.map((call) => `${text(call, 'name')} (${text(call, 'why')})`).join(', ')}` : '';
  const ran = calls.length > 0 ? `${calls.map((call) => text(call, 'name')).join(', ')} recovered from text (${shapes})` : '';
  return [ran, asked].filter(Boolean).join('; ') || 'nothing recovered from text';
}

function callIdsText(data: Record<string, unknown>): string {
  const calls = Array.isArray(data.calls) ? (data.calls as Array<Record<string, unknown>>) : [];
  return `ids: ${calls.map((call) => `${typeof call.given === 'string' ? call.given : '(none)'} → ${text(call, 'id')} (${text(call, 'why')})`).join(', ')}`;
}

function describeModel(data: Record<string, unknown>): RowText {
  const calls = Array.isArray(data.tool_calls) ? data.tool_calls : [];
  const names = calls.map((call) => text(obj(call as Record<string, unknown>, 'function'), 'name')).filter(Boolean);
  const content = text(data, 'content');
  const said = content ? `“${clip(content, 90)}”` : '';
  const recovered = obj(data, 'recovered');
  const shapes = Array.isArray(recovered.shapes) ? recovered.shapes.join(', ') : '';
  // Calls the reply wrote as text: the row says they were recovered, and from which shape.
  const asked = names.length > 0 ? `→ ${names.join(', ')}${shapes ? ` (recovered from text: ${shapes})` : ''}` : 'no tool call';
  const usage = obj(data, 'usage');
  const ms = num(data, 'ms');
  const meta = [`${count(num(usage, 'promptTokens') ?? 0)} in`, `${count(num(usage, 'completionTokens') ?? 0)} out`, ms !== null ? millis(ms) : '']
    .filter(Boolean)
    .join(' · ');
  return { badge: 'model', tone: 'model', text: [`step ${num(data, 'step') ?? '?'}`, said, asked].filter(Boolean).join('  '), meta };
}

/** The argument that says what a tool call did: its command, path or pattern. */
function toolTarget(args: Record<string, unknown>): string {
  if (Array.isArray(args.items)) {
    const done = args.items.filter((item) => (item as { done?: unknown } | null)?.done === true).length;
    return `${args.items.length} items, ${done} done`;
  }
  for (const key of ['command', 'path', 'pattern', 'summary']) if (typeof args[key] === 'string') return clip(args[key] as string, 120);
  return brief(args, 120);
}

/** A tool call; one the deny list refused reads as blocked (it never ran), naming the rule, not as failed. */
function describeTool(data: Record<string, unknown>): RowText {
  const ms = num(data, 'ms');
  const effect = obj(data, 'effect');
  const call = `${text(data, 'name') || 'tool'} ${toolTarget(obj(data, 'args'))}`;
  if (isBlocked(data)) {
    const rule = text(effect, 'blockedBy');
    return {
      badge: 'blocked',
      tone: 'blocked',
      text: `${call}  ⊘ blocked${rule ? `: ${rule}` : ' by the deny list'}`,
      meta: '',
      title: `Blocked before it ran${rule ? `: ${rule}` : ''}`,
    };
  }
  const ok = data.ok !== false;
  const outcome = effectOutcome(effect);
  return {
    badge: 'tool',
    tone: ok ? 'tool' : 'failed',
    text: `${call}${outcome ? ` → ${outcome}` : ''}${ok || outcome ? '' : '  (failed)'}`,
    meta: ms !== null ? millis(ms) : '',
  };
}

/** What a tool's effect says happened: a command's exit code, an edit applied or rejected; a kind from another rein by its name. */
export function effectOutcome(effect: Record<string, unknown>): string {
  return readEffectData(effect, OUTCOMES, (kind) => (kind ? `${kind}${text(effect, 'status') ? ` ${text(effect, 'status')}` : ''}` : ''));
}

const nothing = () => '';

// One entry per kind of effect: a new kind fails tsc here until it says what its row shows.
const OUTCOMES: EffectDataReaders<string> = {
  command: (effect) => {
    if (effect.interrupted === true) return 'interrupted';
    if (effect.timedOut === true) return 'timed out';
    const code = num(effect, 'exitCode');
    return code !== null ? `exit ${code}` : '';
  },
  edit: (effect) => (effect.applied === false ? 'rejected' : 'applied'),
  mcp: (effect) => `MCP ${text(effect, 'server')}/${text(effect, 'tool')}${text(effect, 'outcome') === 'ok' ? '' : ` ${text(effect, 'outcome')}`}`,
  job: (effect) => {
    const state = text(effect, 'state');
    const how = state === 'exited' ? `exited ${String(effect.exitCode)}` : state;
    return ['job', text(effect, 'id'), how || text(effect, 'action')].filter(Boolean).join(' ');
  },
  read: nothing,
  search: nothing,
  todo: nothing,
  finish: nothing,
  none: nothing,
};

function stepMeta(data: Record<string, unknown>): string {
  const step = num(data, 'step');
  return step !== null ? `step ${step}` : '';
}

/** The line without the fields every line has. */
export function withoutBookkeeping(data: Record<string, unknown>): Record<string, unknown> {
  const { i: _i, t: _t, kind: _kind, ...rest } = data;
  return rest;
}

/** A background job's line: `job 1 (npm run dev) running`, `job 1 exited 2`, `job 1 lost: rein was stopped`. */
function jobText(data: Record<string, unknown>): string {
  const state = text(data, 'state');
  const how = state === 'exited' ? `exited ${String(data.exitCode)}` : state;
  const cause = text(data, 'cause');
  return `job ${text(data, 'id')} (${clip(text(data, 'command'), 80)}) ${how}${cause ? `: ${cause}` : ''}`;
}

/** What the secret scanner masked in a tool result: kinds and where, never the secret. */
function maskedText(data: Record<string, unknown>): string {
  const findings = Array.isArray(data.findings) ? (data.findings as Array<Record<string, unknown>>) : [];
  const list = findings.map((finding) => `${text(finding, 'kind')} at ${String(finding.line)}:${String(finding.column)}`).join(', ');
  return `masked in ${text(data, 'name') || 'a tool result'} before the model saw it: ${clip(list, 160)}`;
}

/** An MCP server's lifecycle step: `docs: restarting (restart 1): the connection closed`. */
function mcpServerRow(data: Record<string, unknown>): RowText {
  const state = text(data, 'state');
  const restarts = num(data, 'restarts') ?? 0;
  const problem = text(data, 'problem');
  const where = text(data, 'where');
  const tools = num(data, 'tools');
  const detail = state === 'ready' ? `${tools !== null ? `, ${tools} tools` : ''}${where ? ` (${where})` : ''}` : problem ? `: ${clip(problem, 160)}` : '';
  const tone: Tone = state === 'failed' ? 'error' : state === 'restarting' ? 'warning' : 'step';
  return { badge: 'mcp', tone, text: `MCP server ${text(data, 'server')}: ${state}${restarts > 0 ? ` (restart ${restarts})` : ''}${detail}`, meta: '' };
}

/** What the run offers from MCP servers, or what changed: `offered 12 MCP tools (all sent)`. */
function mcpToolsRow(data: Record<string, unknown>): RowText {
  const tools = Array.isArray(data.tools) ? (data.tools as Array<Record<string, unknown>>) : [];
  const names = tools.map((tool) => text(tool, 'name') || `${text(tool, 'server')}/${text(tool, 'tool')}`);
  const change = text(data, 'change');
  const mode = text(data, 'mode');
  const head =
    change === 'offered'
      ? `offered ${tools.length} MCP tools${mode === 'search' ? ' (the rest found on demand with find_tools)' : ''}`
      : `${change} ${tools.length} MCP tool${tools.length === 1 ? '' : 's'}`;
  const reasons = tools.map((tool) => text(tool, 'reason')).filter(Boolean);
  return {
    badge: 'mcp',
    tone: change === 'changed' || change === 'refused' ? 'warning' : 'tool',
    text: `${head}${names.length > 0 ? `: ${clip(names.join(', '), 180)}` : ''}`,
    meta: '',
    ...(reasons.length > 0 ? { title: reasons.join('\n') } : {}),
  };
}

/** Repositories moved aside and host-run files changed, e.g. `moved aside: sub/.git; changed: .husky (changed)`. */
function hostFilesText(data: Record<string, unknown>): string {
  const moved = Array.isArray(data.quarantined) ? data.quarantined.map((entry) => String((entry as { path?: unknown }).path)) : [];
  const changed = Array.isArray(data.changed)
    ? data.changed.map((entry) => `${String((entry as { path?: unknown }).path)} (${String((entry as { change?: unknown }).change)})`)
    : [];
  const parts = [
    ...(moved.length > 0 ? [`repositories moved aside: ${moved.join(', ')}`] : []),
    ...(changed.length > 0 ? [`host-run files changed: ${changed.join(', ')}`] : []),
  ];
  return clip(parts.join('; ') || 'workspace too large to check for repositories', 300);
}
