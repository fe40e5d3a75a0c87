import { shortEvent } from '../server/event-label.js';
import type { GraphEdge, GraphNode, GraphTransition } from '../server/graph-types.js';
import { knowsGuard, phraseGuard } from '../server/guard-phrases.js';
import { budgetUse, type ChildSummary } from './agent-links.js';
import type { ChartIndex, TransitionMatch } from './chart-index.js';
import { h } from './dom.js';
import { guardPart } from './edge-text.js';
import { type Entry, num, obj, text } from './entries.js';
import { describeEntry, effectOutcome, withoutBookkeeping } from './event-format.js';
import { brief, count, millis } from './format.js';
import { stallText } from './harness-events.js';
import { isBlocked } from './marks.js';

type Field = [string, string | Node];

/**
 * The panel under the event list: everything about the selected event
 * (arguments, results, the guard that fired and the ones that refused), or
 * about a state clicked in the chart (its description and ordered exits).
 *
 * @example detail.showEntry(entry, match);
 */
export class DetailView {
  readonly element = h('section', { class: 'detail', 'aria-live': 'polite' });
  private shown = '';

  /** `children`: the run's delegated children (of one `delegate` call), when the server serves their pages. */
  constructor(
    private readonly chart: ChartIndex,
    private readonly children: ((callId: string) => ChildSummary[]) | null = null,
  ) {}

  showEntry(entry: Entry | null, match: TransitionMatch | null): void {
    const key = entry ? `entry:${entry.index}` : 'none';
    if (key === this.shown) return;
    this.shown = key;
    if (!entry) {
      this.element.replaceChildren(h('p', { class: 'empty' }, 'No events yet.'));
      return;
    }
    const row = describeEntry(entry, match);
    const head = h(
      'header',
      {},
      h('span', { class: `badge tone-${row.tone}` }, row.badge),
      h('span', { class: 'title' }, `#${entry.index} · ${entry.kind}`),
      h('span', { class: 'meta' }, row.meta),
    );
    this.element.replaceChildren(head, ...this.childLinks(entry), ...this.body(entry, match), rawBlock(entry.data));
  }

  showNode(node: GraphNode, entered: number): void {
    const key = `node:${node.id}:${entered}`;
    if (key === this.shown) return;
    this.shown = key;
    const inside = (id: string | null) => id !== null && (id === node.id || id.startsWith(`${node.id}.`));
    // A phase is left from the states inside it: its ways out are theirs.
    const ways =
      node.kind === 'compound'
        ? this.chart.graph.transitions.filter(
            (transition) => inside(transition.source) && transition.source !== node.id && transition.target !== null && !inside(transition.target),
          )
        : [];
    const exits = [...this.chart.outgoing(node.id), ...ways];
    const head = h(
      'header',
      {},
      h('span', { class: 'badge tone-phase' }, node.kind === 'root' ? 'machine' : node.kind),
      h('span', { class: 'title' }, node.kind === 'root' ? 'any state' : node.id),
      h('span', { class: 'meta' }, entered > 0 ? `entered ×${entered} so far` : 'not entered yet'),
    );
    const fields: Field[] = [];
    if (node.invokes.length > 0) fields.push(['invokes', node.invokes.join(', ')]);
    if (node.entry.length > 0) fields.push(['on entry', node.entry.join(', ')]);
    const list = h(
      'ol',
      { class: 'exits' },
      ...exits.map((transition) =>
        h(
          'li',
          {},
          ways.includes(transition) ? h('span', { class: 'from' }, `${transition.source.slice(node.id.length + 1)}: `) : '',
          transitionLine(transition),
          ...(transition.guard && knowsGuard(transition.guard.name) ? [h('div', { class: 'said' }, phraseGuard(transition.guard))] : []),
        ),
      ),
    );
    const title =
      ways.length > 0
        ? 'Ways out of this phase, from the state that takes each, in the order XState tries them'
        : 'Transitions, in the order XState tries them';
    this.element.replaceChildren(
      head,
      node.description ? h('p', { class: 'desc' }, node.description) : '',
      fieldGrid(fields),
      exits.length > 0 ? h('h4', {}, title) : '',
      exits.length > 0 ? list : '',
    );
  }

  showEdge(edge: GraphEdge): void {
    const key = `edge:${edge.id}`;
    if (key === this.shown) return;
    this.shown = key;
    const own = this.chart.graph.transitions.filter((transition) => edge.transitions.includes(transition.id));
    const name = (id: string) => (id === this.chart.graph.machineId ? 'any state' : id);
    const head = h(
      'header',
      {},
      h('span', { class: 'badge tone-phase' }, 'arrow'),
      h('span', { class: 'title' }, `${name(edge.source)} → ${name(edge.target)}`),
    );
    const list = h(
      'ol',
      { class: 'exits' },
      ...own.map((transition) =>
        h(
          'li',
          {},
          transitionLine(transition),
          ...(transition.guard && knowsGuard(transition.guard.name) ? [h('div', { class: 'said' }, phraseGuard(transition.guard))] : []),
        ),
      ),
    );
    this.element.replaceChildren(head, h('p', { class: 'desc' }, 'The transitions this arrow draws; the list shows the times the run took one.'), list);
  }

  /** The step that spawned children (its `delegate` call, or an `agent` line) links to each child's chart, with its budget use. */
  private childLinks(entry: Entry): Node[] {
    if (!this.children) return [];
    const callId =
      entry.kind === 'agent' ? text(entry.data, 'callId') : entry.kind === 'tool' && text(entry.data, 'name') === 'delegate' ? text(entry.data, 'id') : '';
    const child = entry.kind === 'agent' ? text(entry.data, 'child') : null;
    const shown = callId ? this.children(callId).filter((summary) => child === null || summary.child === child) : [];
    if (shown.length === 0) return [];
    return [
      h(
        'ul',
        { class: 'agent-links' },
        ...shown.map((summary) =>
          h(
            'li',
            {},
            summary.href && summary.status !== 'refused'
              ? h(
                  'a',
                  { href: summary.href, class: 'agent-link', title: `Open the chart of agent ${summary.agent} (${summary.child})` },
                  `${summary.agent}'s chart →`,
                )
              : '',
            h('span', { class: 'agent-use' }, ` ${budgetUse(summary)}`),
          ),
        ),
      ),
    ];
  }

  private body(entry: Entry, match: TransitionMatch | null): Node[] {
    const { data } = entry;
    switch (entry.kind) {
      case 'transition':
        return transitionBody(data, match, this.chart);
      case 'model':
        return modelBody(data);
      case 'tool':
        return toolBody(data);
      case 'stall':
        return stallBody(data);
      case 'start':
        return [
          fieldGrid(
            ['task', 'testCmd', 'model', 'endpoint', 'workspace', 'sandbox', 'version']
              .filter((key) => data[key] !== undefined)
              .map((key): Field => [key, brief(data[key], 400)]),
          ),
          ...(Array.isArray(data.tools) ? [fieldGrid([['tools', (data.tools as unknown[]).join(', ')]])] : []),
        ];
      default: {
        const intro = entry.known
          ? []
          : [h('p', { class: 'desc' }, `This rein does not know events of kind “${entry.kind}” (a trace from another version?): the line is shown as it is.`)];
        const rest = withoutBookkeeping(data);
        const long = Object.entries(rest).filter(([, value]) => typeof value === 'string' && value.length > 80);
        const short = Object.entries(rest).filter(([key]) => !long.some(([longKey]) => longKey === key));
        return [...intro, fieldGrid(short.map(([key, value]): Field => [key, brief(value, 300)])), ...long.map(([key, value]) => block(key, value as string))];
      }
    }
  }
}

function transitionBody(data: Record<string, unknown>, match: TransitionMatch | null, chart: ChartIndex): Node[] {
  const actions = Array.isArray(data.actions) ? (data.actions as unknown[]).map(String) : [];
  const guard = text(data, 'guard');
  const fields: Field[] = [
    ['from', text(data, 'from') || '(initial state)'],
    ['to', text(data, 'to')],
    ['event', `${text(data, 'event')}  (${shortEvent(text(data, 'event'))})`],
  ];
  if (guard) fields.push(['guard', h('span', { class: 'ok' }, `✓ ${match?.transition?.guard ? guardPart(match.transition) : guard} held`)]);
  if (match && match.refused.length > 0)
    fields.push(['refused', h('span', { class: 'no' }, match.refused.map((transition) => `✗ ${guardPart(transition)}`).join('   '))]);
  if (match?.transition && !guard && match.refused.length > 0)
    fields.push(['taken', `${match.transition.label || 'the unguarded fallback'}: every guard before it refused`]);
  if (actions.length > 0) fields.push(['actions', actions.join(', ')]);
  if (!match?.transition && text(data, 'from'))
    fields.push(['chart', 'This transition is not in the chart drawn here (the trace comes from other rules or another version).']);
  const target = chart.nodes.get(text(data, 'to'));
  return [fieldGrid(fields), ...(target?.description ? [h('p', { class: 'desc' }, `${target.id}: ${target.description}`)] : [])];
}

function modelBody(data: Record<string, unknown>): Node[] {
  const usage = obj(data, 'usage');
  const ms = num(data, 'ms');
  const fields: Field[] = [
    ['step', String(num(data, 'step') ?? '?')],
    ['prompt', `${count(num(usage, 'promptTokens') ?? 0)} tokens (${count(num(usage, 'cachedTokens') ?? 0)} cached)`],
    ['completion', `${count(num(usage, 'completionTokens') ?? 0)} tokens`],
  ];
  if (ms !== null) fields.push(['latency', millis(ms)]);
  const calls = Array.isArray(data.tool_calls) ? (data.tool_calls as Array<Record<string, unknown>>) : [];
  const content = text(data, 'content');
  return [
    fieldGrid(fields),
    ...(content ? [block('content', content)] : []),
    ...calls.map((call) => {
      const fn = obj(call, 'function');
      return block(`→ ${text(fn, 'name')}`, pretty(text(fn, 'arguments')));
    }),
  ];
}

function stallBody(data: Record<string, unknown>): Node[] {
  const fields: Field[] = [
    ['rule', text(data, 'rule')],
    ['what it saw', stallText(data)],
  ];
  const count = num(data, 'count');
  const limit = num(data, 'limit');
  if (limit !== null)
    fields.push(['count', `${count ?? limit} against a limit of ${limit}${count === null ? ' (this trace does not say the count; at least the limit)' : ''}`]);
  const nudges = num(data, 'maxNudges');
  fields.push(['nudge', `#${num(data, 'firings') ?? 1}${nudges !== null ? ` of ${nudges}; after that the run ends as stalled` : ''}`]);
  return [fieldGrid(fields), block('nudge sent to the model', text(data, 'message'))];
}

function toolBody(data: Record<string, unknown>): Node[] {
  const ms = num(data, 'ms');
  const effect = obj(data, 'effect');
  const outcome = isBlocked(data)
    ? h('span', { class: 'blocked' }, `blocked before it ran${text(effect, 'blockedBy') ? `: ${text(effect, 'blockedBy')}` : ' (the deny list)'}`)
    : data.ok === false
      ? h('span', { class: 'no' }, `failed${effectOutcome(effect) ? ` (${effectOutcome(effect)})` : ''}`)
      : h('span', { class: 'ok' }, effectOutcome(effect) || 'ok');
  const fields: Field[] = [
    ['tool', text(data, 'name')],
    ['outcome', outcome],
  ];
  if (ms !== null) fields.push(['time', millis(ms)]);
  if (data.effect !== undefined) fields.push(['effect', brief(data.effect, 240)]);
  return [
    fieldGrid(fields),
    block('arguments', JSON.stringify(data.args ?? {}, null, 2)),
    block('result (as the model saw it, truncated)', text(data, 'result')),
  ];
}

function transitionLine(transition: GraphTransition): HTMLElement {
  const target = transition.target ?? '(stays)';
  const actions = transition.actions.length > 0 ? ` / ${transition.actions.join(', ')}` : '';
  return h('span', {}, h('code', {}, transition.text || (transition.event === null ? '(always)' : transition.event)), ` → ${target}${actions}`);
}

function fieldGrid(fields: Field[]): HTMLElement {
  return h('dl', { class: 'fields' }, ...fields.flatMap(([key, value]) => [h('dt', {}, key), h('dd', {}, value)]));
}

function block(title: string, body: string): HTMLElement {
  return h('div', { class: 'block' }, h('div', { class: 'block-title' }, title), h('pre', {}, body));
}

function rawBlock(data: Record<string, unknown>): HTMLElement {
  const details = h('details', { class: 'raw' }, h('summary', {}, 'Raw line'));
  // The JSON is built when opened: a start line carries the whole rules.
  details.addEventListener('toggle', () => {
    if (details.open && details.childElementCount === 1) details.append(h('pre', {}, JSON.stringify(data, null, 2)));
  });
  return details;
}

function pretty(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}
