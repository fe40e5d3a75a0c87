import type { ChartIndex } from './chart-index.js';
import { type Entry, text } from './entries.js';
import type { ListScope } from './event-list.js';
import type { ChartPick } from './statechart-view.js';
import type { Timeline } from './timeline.js';

/**
 * The event list's subset for a state or arrow clicked on the chart: the
 * transitions that entered the state (from outside it) or took the arrow,
 * with the lines their actions wrote (a nudge, a gate decision). For a
 * state, "and inside" widens it to everything while the run was there.
 *
 * @example list.setScope(scopeOfPick({ kind: 'state', id: 'build' }, chart, timeline));
 */
export function scopeOfPick(pick: ChartPick, chart: ChartIndex, timeline: Timeline): ListScope | null {
  if (!pick) return null;
  const withEffects = (isCause: (transition: Entry) => boolean) => (entry: Entry) => {
    if (entry.kind === 'transition') return isCause(entry);
    const cause = timeline.causeOf(entry);
    return cause !== null && isCause(cause);
  };
  if (pick.kind === 'edge') {
    const edge = chart.graph.edges.find((candidate) => candidate.id === pick.id);
    const took = (entry: Entry) => timeline.matchOf(entry).transition?.edge === pick.id;
    return { label: `took ${edge ? `${name(chart, edge.source)} → ${name(chart, edge.target)}` : pick.id}`, matches: withEffects(took) };
  }
  const id = pick.id;
  if (id === chart.graph.machineId) {
    const fromRoot = (entry: Entry) => timeline.matchOf(entry).transition?.source === id;
    return { label: 'transitions of the machine itself (any state)', matches: withEffects(fromRoot) };
  }
  const within = (state: string) => state === id || state.startsWith(`${id}.`);
  const entered = (entry: Entry) => within(text(entry.data, 'to')) && !within(text(entry.data, 'from'));
  return {
    label: `entered ${id}`,
    matches: withEffects(entered),
    inside: {
      label: `entered ${id}, and everything while in it`,
      matches: (entry) => (entry.kind === 'transition' ? within(text(entry.data, 'to')) : within(timeline.stateAt(entry.index) ?? '')),
    },
  };
}

function name(chart: ChartIndex, id: string): string {
  return id === chart.graph.machineId ? 'any state' : id;
}
