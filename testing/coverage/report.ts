import type { AnyTransitionDefinition } from 'xstate';
import type { HarnessMachine } from '../../machines/harness-machine.js';
import { listTransitions, type TransitionInfo } from '../../machines/introspection.js';

export interface CoverageReport {
  transitions: TransitionInfo[];
  /** Key → how it was taken: the state it was taken from and the event. */
  covered: Map<string, string>;
  missing: TransitionInfo[];
  /** State nodes no generated path ever entered. */
  unreachableStates: string[];
  /** Abstract states the path search reached. */
  statesExplored: number;
  /** Key → the path that took it: a start (the initial state, or a budget seed), the events to its source state, and the event that fired it. */
  witnesses: Map<string, Witness>;
  /** Key → why a missing transition is not covered, when more is known than "no path takes it" (its witness did not replay). */
  reasons?: Map<string, string>;
  /** Keys of missing transitions that cannot be taken by construction and are information, not failures. */
  info?: Set<string>;
}

/** How a transition was first taken: replayable with scripted actors (see `replay.ts`). */
export interface Witness {
  seed: unknown;
  path: Array<{ type: string; [key: string]: unknown }>;
  event: { type: string; [key: string]: unknown };
  definition: AnyTransitionDefinition;
}

/** Each transition definition of a machine with its key, as `listTransitions` names it. */
export function transitionKeys(machine: HarnessMachine): Map<AnyTransitionDefinition, string> {
  return new Map(listTransitions(machine).map((info) => [info.definition, info.key]));
}

/** A readable coverage table: every transition, covered or not, and unreachable states. */
export function formatCoverage(report: CoverageReport, title: string): string {
  const lines = [`${title}: ${report.covered.size}/${report.transitions.length} transitions covered (${report.statesExplored} abstract states explored)`];
  for (const info of report.transitions) {
    const reason = report.reasons?.get(info.key);
    const mark = report.covered.has(info.key) ? '✓' : report.info?.has(info.key) ? 'i' : '✗';
    lines.push(`  ${mark} ${info.key}${!report.covered.has(info.key) && reason ? `  (${reason})` : ''}`);
  }
  if (report.unreachableStates.length > 0) lines.push(`  unreachable states: ${report.unreachableStates.join(', ')}`);
  return lines.join('\n');
}
