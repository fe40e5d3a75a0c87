import type { AnyStateMachine } from 'xstate';
import type { GraphTransition } from './graph-types.js';
import { describeMachine } from './machine-graph.js';
import { transitionLabel } from './transition-label.js';

/**
 * Compact Mermaid charts for reading at a glance (the README shows these):
 * the phases and the ways a run ends, with the guards of the arrows between
 * them (`toPhaseMermaid`), and one phase's turn cycle with where its arrows
 * out lead (`toTurnCycleMermaid`). `rein rules graph` prints the whole chart.
 */

const id = (name: string) => name.replace(/[^A-Za-z0-9_]/g, '_');
const text = (label: string) => label.replace(/:\s*/g, '=').replace(/;/g, ',').replace(/#/g, '');

/** The top-level state a node belongs to: its phase, or a final state. */
function topOf(nodeId: string): string {
  return nodeId.split('.')[0]!;
}

function labelOf(transition: GraphTransition): string {
  return transitionLabel(transition.event, transition.guard, false).replace(/^xstate\.done\.actor\.\w+ /, '');
}

/**
 * The phases and final states, each arrow between two of them labelled with
 * every guard that can take it. A final state every phase reaches the same
 * way leaves from one "every phase" node.
 *
 * @example console.log(toPhaseMermaid(createHarnessMachine(defaultRules())));
 */
export function toPhaseMermaid(machine: AnyStateMachine): string {
  const shape = describeMachine(machine);
  const phases = shape.nodes.filter((node) => node.kind === 'compound' && node.parent === shape.machineId).map((node) => node.id);
  const finals = shape.nodes.filter((node) => node.kind === 'final').map((node) => node.id);
  const root = shape.nodes.find((node) => node.kind === 'root');
  const arrows = new Map<string, Set<string>>();
  const add = (from: string, to: string, label: string) => {
    const key = `${from}|${to}`;
    arrows.set(key, (arrows.get(key) ?? new Set()).add(label));
  };
  for (const transition of shape.transitions) {
    if (transition.target === null) continue;
    const from = transition.source === shape.machineId ? shape.machineId : topOf(transition.source);
    const to = topOf(transition.target);
    if (from === to) continue;
    add(from, to, labelOf(transition));
  }
  // Arrows into a final state that every phase has with the same labels leave from one node.
  const shared = new Set<string>();
  for (const final of finals) {
    const labelsFrom = phases.map((phase) => [...(arrows.get(`${phase}|${final}`) ?? [])].sort().join(' | '));
    if (phases.length > 1 && labelsFrom.every((labels) => labels !== '' && labels === labelsFrom[0])) shared.add(final);
  }
  const lines = ['stateDiagram-v2'];
  if (root?.initial) lines.push(`  [*] --> ${id(root.initial)}`);
  if (shared.size > 0) lines.push('  state "every phase" as every_phase');
  if ([...arrows.keys()].some((key) => key.startsWith(`${shape.machineId}|`))) lines.push(`  state "any state" as ${id(shape.machineId)}`);
  for (const [key, labels] of arrows) {
    const [from, to] = key.split('|') as [string, string];
    if (shared.has(to) && phases.includes(from)) continue;
    lines.push(`  ${id(from)} --> ${id(to)} : ${[...labels].map(text).join(' | ')}`);
  }
  for (const final of shared) lines.push(`  every_phase --> ${id(final)} : ${[...(arrows.get(`${phases[0]}|${final}`) ?? [])].map(text).join(' | ')}`);
  for (const final of finals) lines.push(`  ${id(final)} --> [*]`);
  return lines.join('\n') + '\n';
}

/**
 * One phase's turn cycle: its states and the arrows between them, and each
 * arrow out of the phase to the phase or final state it leads to.
 *
 * @example console.log(toTurnCycleMermaid(createHarnessMachine(defaultRules()), 'build'));
 */
export function toTurnCycleMermaid(machine: AnyStateMachine, phase: string): string {
  const shape = describeMachine(machine);
  const inside = (nodeId: string | null) => nodeId?.startsWith(`${phase}.`);
  const node = shape.nodes.find((candidate) => candidate.id === phase);
  const lines = ['stateDiagram-v2'];
  if (node?.initial) lines.push(`  [*] --> ${id(node.initial.slice(phase.length + 1))}`);
  const arrows = new Map<string, Set<string>>();
  for (const transition of shape.transitions) {
    if (!inside(transition.source) || transition.target === null) continue;
    const from = transition.source.slice(phase.length + 1);
    const to = inside(transition.target)
      ? transition.target.slice(phase.length + 1)
      : transition.target.includes('.')
        ? `${topOf(transition.target)} (phase)`
        : transition.target;
    const key = `${from}|${to}`;
    arrows.set(key, (arrows.get(key) ?? new Set()).add(labelOf(transition)));
  }
  const outside = new Set<string>();
  for (const [key, labels] of arrows) {
    const [from, to] = key.split('|') as [string, string];
    if (to.endsWith(' (phase)')) outside.add(to);
    const shown = [...labels].filter(Boolean).map(text).join(' | ');
    lines.push(`  ${id(from)} --> ${id(to)}${shown ? ` : ${shown}` : ''}`);
  }
  for (const target of outside) lines.push(`  state "${target}" as ${id(target)}`);
  return lines.join('\n') + '\n';
}
