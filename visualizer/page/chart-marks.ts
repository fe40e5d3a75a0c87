import { setLines } from './chart-drawing.js';
import type { ChartIndex, TransitionMatch } from './chart-index.js';
import { setText } from './dom.js';
import { type LabelLine, refusedLine, takenLines } from './edge-text.js';
import type { LevelViews } from './level-drawing.js';

/** What the run did in one phase up to the moment shown. */
export interface PhaseStats {
  visits: number;
  steps: number;
}

/** What to mark on the chart for one moment of the run. */
export interface Highlight {
  state: string | null;
  match: TransitionMatch | null;
  visits: { states: Map<string, number>; edges: Map<string, number> };
  phases: Map<string, PhaseStats>;
  /** Names of the actors running now (live): the active state pulses while its call is out. */
  inFlight: Set<string>;
}

/**
 * Marks one moment on a drawn level: the active state (or the closed phase
 * holding it) and its ancestors, the transition just taken and the arrows
 * whose guards refused first, with their labels; how often each state was
 * entered; each phase card's counts and what the phase is doing now.
 *
 * @example const marks = new MomentMarks(chart); marks.apply(views, highlight, true);
 */
export class MomentMarks {
  private marked: Element[] = [];

  constructor(private readonly chart: ChartIndex) {}

  /** Forgets the elements of a level that was drawn over. */
  reset(): void {
    this.marked = [];
  }

  apply(views: LevelViews, highlight: Highlight, phaseLevel: boolean): void {
    for (const element of this.marked) element.classList.remove('active', 'active-parent', 'taken', 'refused', 'busy');
    this.marked = [];
    const mark = (element: Element | undefined, name: string) => {
      if (element) {
        element.classList.add(name);
        this.marked.push(element);
      }
    };
    const lineage = highlight.state ? this.chart.lineage(highlight.state) : [];
    const shown = lineage.find((id) => views.nodes.has(id)) ?? null;
    lineage.forEach((id) => {
      mark(views.nodes.get(id), id === shown ? 'active' : 'active-parent');
    });
    const invokes = highlight.state ? (this.chart.nodes.get(highlight.state)?.invokes ?? []) : [];
    if (shown && invokes.some((name) => highlight.inFlight.has(name))) mark(views.nodes.get(shown), 'busy');
    markVisits(views, highlight);
    this.markCards(views, highlight, shown);
    for (const view of views.edges.values()) {
      if (view.label.dataset.shown === 'true') setLines(view.label, view.restLines);
      view.label.dataset.shown = 'false';
    }
    const taken = highlight.match?.transition ?? null;
    for (const refused of this.notableRefusals(highlight.match)) {
      const view = refused.edge && refused.edge !== taken?.edge ? views.edges.get(refused.edge) : undefined;
      if (!view) continue;
      mark(view.group, 'refused');
      showLabel(view.label, [refusedLine(refused, phaseLevel)]);
    }
    const takenView = taken?.edge ? views.edges.get(taken.edge) : undefined;
    if (taken && takenView) {
      mark(takenView.group, 'taken');
      const betweenPhases = phaseLevel && takenView.group.classList.contains('between-phases') && !takenView.drawn.edge.toFinal;
      showLabel(takenView.label, takenLines(taken, takenView.restLines, betweenPhases));
      takenView.group.parentNode?.appendChild(takenView.group);
    }
  }

  /**
   * The refusals worth an arrow: those a guarded transition won over (a rule that held, after the ones tried first),
   * and the gate's (its refusal is an event of the run). An ordinary step, where no exit held and the machine took
   * its fallback, refuses every exit of the phase every turn: drawing those would light the chart up each step.
   */
  private notableRefusals(match: TransitionMatch | null): TransitionMatch['refused'] {
    const taken = match?.transition;
    if (!taken) return [];
    if (taken.guard !== null || this.chart.nodes.get(taken.source)?.key === 'gate') return match.refused;
    return [];
  }

  private markCards(views: LevelViews, highlight: Highlight, shown: string | null): void {
    for (const [id, parts] of views.cards) {
      const stats = highlight.phases.get(id);
      setText(parts.counts, stats && stats.visits > 0 ? `${plural(stats.visits, 'visit')} · ${plural(stats.steps, 'step')}` : 'not entered yet');
      const inner = shown === id && highlight.state && highlight.state !== id ? this.chart.nodes.get(highlight.state) : undefined;
      const doing = inner ? `● ${inner.key}${inner.invokes.length > 0 ? ` ⇢ ${inner.invokes.join(', ')}` : ''}` : (this.chart.nodes.get(id)?.description ?? '');
      const room = inner ? 25 : 28;
      setText(parts.line, doing.length > room ? `${doing.slice(0, room - 1)}…` : doing);
      parts.line.classList.toggle('now', inner !== undefined);
    }
  }
}

function markVisits(views: LevelViews, highlight: Highlight): void {
  for (const [id, group] of views.nodes) {
    const times = highlight.visits.states.get(id) ?? 0;
    group.classList.toggle('visited', times > 0);
    const badge = group.querySelector(':scope > .visits');
    if (badge) setText(badge, times > 1 ? `×${times}` : '');
  }
  for (const [id, view] of views.edges) view.group.classList.toggle('visited', (highlight.visits.edges.get(id) ?? 0) > 0);
}

function showLabel(label: SVGTextElement, lines: LabelLine[]): void {
  setLines(
    label,
    lines.map((line) => (typeof line === 'string' ? line : line.text)),
  );
  lines.forEach((line, index) => {
    if (typeof line !== 'string' && line.hit) label.children[index]?.classList.add('hit');
  });
  label.dataset.shown = 'true';
}

function plural(count: number, word: string): string {
  return `${count} ${count === 1 ? word : `${word}s`}`;
}
