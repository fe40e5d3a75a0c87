import type { GraphTransition } from '../server/graph-types.js';
import { phaseLine } from '../server/guard-phrases.js';

/** A label line, marked when it is the guard that just held. */
export type LabelLine = string | { text: string; hit: boolean };

/**
 * The label of an arrow just taken. Between phases, every guard that can
 * take it stays listed and the one that held is ticked; elsewhere the label
 * is the transition taken.
 *
 * @example takenLines(verifyToFix, ['testFailed'], true) // [{ text: '✓ testFailed', hit: true }]
 */
export function takenLines(taken: GraphTransition, restLines: string[], betweenPhases: boolean): LabelLine[] {
  if (!betweenPhases) return [taken.text || '(no guard)'];
  const held = phaseLine(taken);
  const lines: LabelLine[] = restLines.filter((line) => !line.startsWith('+')).map((line) => (line === held ? { text: `✓ ${line}`, hit: true } : line));
  return lines.some((line) => typeof line !== 'string') ? lines : [{ text: `✓ ${held}`, hit: true }, ...lines];
}

/** An arrow whose guard was tried and refused just before the one taken; at the phase level without the brackets. */
export function refusedLine(refused: GraphTransition, bare = false): string {
  const guard = guardPart(refused);
  return `✗ ${bare && refused.guard ? phaseLine(refused) : guard}`;
}

/**
 * A transition's guard as its label shows it, without the event.
 *
 * @example guardPart(transition) // '[repeatedAction(limit: 3)]' for the label 'done [repeatedAction(limit: 3)]'
 */
export function guardPart(transition: GraphTransition): string {
  const text = transition.text ?? transition.label;
  return transition.guard ? text.replace(/^.*?\[/, '[') : text;
}
