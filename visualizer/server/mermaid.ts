import type { AnyStateMachine } from 'xstate';
import type { GraphTransition } from './graph-types.js';
import { describeMachine, type NodeShape } from './machine-graph.js';
import { transitionLabel } from './transition-label.js';

/**
 * The machine as a Mermaid `stateDiagram-v2`, generated from its definition:
 * compound states nest their children, every transition is an arrow
 * labelled `event [guard(params)]` (transitions between the same two states
 * share one arrow), final states lead to `[*]`.
 *
 * @example console.log(toMermaid(createHarnessMachine(defaultRules())));
 */
export function toMermaid(machine: AnyStateMachine): string {
  const shape = describeMachine(machine);
  const root = shape.nodes.find((node) => node.kind === 'root');
  const lines = ['stateDiagram-v2'];
  if (root?.initial) lines.push(`  [*] --> ${mermaidId(root.initial)}`);
  const placed = new Set<string>();
  const block = (parent: string, depth: number) => {
    const indent = '  '.repeat(depth);
    for (const node of shape.nodes.filter((child) => child.parent === parent)) {
      if (shape.nodes.some((child) => child.parent === node.id)) {
        lines.push(`${indent}state ${mermaidId(node.id)} {`);
        if (node.initial) lines.push(`${indent}  [*] --> ${mermaidId(node.initial)}`);
        block(node.id, depth + 1);
        lines.push(`${indent}}`);
      } else if (node.key !== mermaidId(node.id)) {
        lines.push(`${indent}state "${node.key}" as ${mermaidId(node.id)}`);
      }
      // Arrows between two children of the same box are written inside it; the rest at the top level.
      lines.push(
        ...arrows(
          shape.transitions.filter(
            (transition) =>
              parentOf(transition.target, shape.nodes) === parent && parentOf(transition.source, shape.nodes) === parent && transition.source === node.id,
          ),
          indent,
          placed,
        ),
      );
    }
  };
  block(shape.machineId, 1);
  // The machine's own transitions (a timer, say) leave from an "any state" node, as on the page.
  if (shape.transitions.some((transition) => transition.source === shape.machineId && transition.target !== null))
    lines.push(`  state "any state" as ${mermaidId(shape.machineId)}`);
  lines.push(...arrows(shape.transitions, '  ', placed));
  for (const node of shape.nodes.filter((candidate) => candidate.kind === 'final')) lines.push(`  ${mermaidId(node.id)} --> [*]`);
  return lines.join('\n') + '\n';
}

/** Arrows not written yet, one per pair of states. */
function arrows(transitions: GraphTransition[], indent: string, placed: Set<string>): string[] {
  const groups = new Map<string, { source: string; target: string; labels: string[] }>();
  for (const transition of transitions) {
    if (transition.target === null || placed.has(transition.id)) continue;
    placed.add(transition.id);
    const key = `${transition.source}->${transition.target}`;
    const group = groups.get(key) ?? { source: transition.source, target: transition.target, labels: [] };
    const label = mermaidLabel(transition);
    if (label && !group.labels.includes(label)) group.labels.push(label);
    groups.set(key, group);
  }
  return [...groups.values()].map(({ source, target, labels }) => {
    const label = labels.map(mermaidText).join(' | ');
    return `${indent}${mermaidId(source)} --> ${mermaidId(target)}${label ? ` : ${label}` : ''}`;
  });
}

/** Mermaid boxes do not show what a state invokes, so done and error events keep the actor's name. */
function mermaidLabel(transition: GraphTransition): string {
  return transitionLabel(transition.event, transition.guard, transition.label.endsWith('[else]'));
}

function parentOf(id: string | null, nodes: NodeShape[]): string | null {
  return nodes.find((node) => node.id === id)?.parent ?? null;
}

/** Mermaid ids are global: a nested state's id is its whole path. */
function mermaidId(id: string): string {
  return id.replace(/[^A-Za-z0-9_]/g, '_');
}

/** Label text Mermaid's parser accepts: no colons, semicolons or `#` entities. */
function mermaidText(text: string): string {
  return text.replace(/:\s*/g, '=').replace(/;/g, ',').replace(/#/g, '');
}
