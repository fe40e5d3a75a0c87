import type { GraphNode, GraphTransition, StatechartGraph } from '../server/graph-types.js';

/** A `transition` trace line's fields. */
interface TransitionLine {
  from: string;
  to: string;
  event: string;
  /** An eventless (`always`) transition, whose `event` is the macrostep's. */
  eventless?: boolean;
  guard?: string;
}

/** The chart's transition a trace line took, and the guards that refused before it in the same ordered list. */
export interface TransitionMatch {
  transition: GraphTransition | null;
  refused: GraphTransition[];
}

const NO_MATCH: TransitionMatch = { transition: null, refused: [] };

/**
 * Look-ups over the statechart: states by id, their ancestors, and which
 * transition of the machine a trace line took. XState takes the first
 * transition in a state's ordered list whose guard holds, so every guarded
 * transition before the one taken was evaluated and refused.
 *
 * @example new ChartIndex(graph).match({ from: 'build.gate', to: 'build.afterTools', event: 'xstate.done.actor.tools' }).refused[0]?.guard?.name // 'testsPassedSinceLastEdit'
 */
export class ChartIndex {
  readonly nodes: Map<string, GraphNode>;
  private readonly bySource = new Map<string, GraphTransition[]>();
  private readonly matches = new Map<string, TransitionMatch>();

  constructor(readonly graph: StatechartGraph) {
    this.nodes = new Map(graph.nodes.map((node) => [node.id, node]));
    for (const transition of graph.transitions) {
      const list = this.bySource.get(transition.source) ?? [];
      list.push(transition);
      this.bySource.set(transition.source, list);
    }
  }

  /** The state, then its ancestors, innermost first, ending with the machine. */
  lineage(id: string): string[] {
    const ids: string[] = [];
    for (let node = this.nodes.get(id); node; node = node.parent === null ? undefined : this.nodes.get(node.parent)) ids.push(node.id);
    return ids;
  }

  /** The outermost state below the machine that holds `id`: the phase of `build.act` is `build`. */
  topLevel(id: string): string | null {
    const lineage = this.lineage(id).filter((ancestor) => ancestor !== this.graph.machineId);
    return lineage.at(-1) ?? null;
  }

  /** Transitions that leave a state, in the machine's order. */
  outgoing(id: string): GraphTransition[] {
    return this.bySource.get(id) ?? [];
  }

  match(line: TransitionLine): TransitionMatch {
    const key = `${line.from}|${line.to}|${line.eventless ? '' : line.event}|${line.guard ?? ''}`;
    let found = this.matches.get(key);
    if (!found) {
      found = this.findMatch(line);
      this.matches.set(key, found);
    }
    return found;
  }

  private findMatch(line: TransitionLine): TransitionMatch {
    if (!this.nodes.has(line.from)) return NO_MATCH;
    for (const source of this.lineage(line.from)) {
      const list = this.outgoing(source);
      const fits = (transition: GraphTransition) =>
        reaches(transition, line) && (line.guard ? (transition.guard?.key ?? transition.guard?.name) === line.guard : transition.guard === null);
      // A line marked eventless took an eventless transition; older traces do not say, so theirs is tried second.
      const taken =
        (line.eventless ? undefined : list.find((transition) => transition.event === line.event && fits(transition))) ??
        list.find((transition) => transition.event === null && fits(transition));
      if (taken) {
        const refused = list.filter((transition) => transition.event === taken.event && transition.order < taken.order && transition.guard !== null);
        return { transition: taken, refused };
      }
    }
    return NO_MATCH;
  }
}

function reaches(transition: GraphTransition, line: TransitionLine): boolean {
  if (transition.target === null) return line.to === line.from;
  return line.to === transition.target || line.to.startsWith(`${transition.target}.`);
}
