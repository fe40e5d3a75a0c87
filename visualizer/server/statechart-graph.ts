import type { AnyStateMachine } from 'xstate';
import { layoutMachine } from './graph-layout.js';
import type { StatechartGraph } from './graph-types.js';
import { describeMachine } from './machine-graph.js';

/**
 * The statechart of a machine as plain JSON with positions: nodes (compound
 * states contain their children), one routed edge per pair of states, and
 * every transition with its event, named guard, actions and order.
 *
 * @example const graph = await buildStatechartGraph(createHarnessMachine(defaultRules()));
 */
export async function buildStatechartGraph(machine: AnyStateMachine): Promise<StatechartGraph> {
  return layoutMachine(describeMachine(machine));
}
