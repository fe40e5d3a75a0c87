import { UsageError } from '../../lib/errors.js';
import type { HarnessMachine } from '../../machines/harness-machine.js';
import type { Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';

/**
 * Prints the statechart the rules build: Mermaid `stateDiagram-v2` text, or
 * JSON with every state, transition (guard, params, actions) and the laid-out
 * positions the visualizer draws.
 */
export async function printGraph(machine: HarnessMachine, format: string, io: Io): Promise<number> {
  if (format === 'json') {
    const { buildStatechartGraph } = await import('../../visualizer/server/statechart-graph.js');
    io.stdout.write(JSON.stringify(await buildStatechartGraph(machine), null, 2) + '\n');
    return EXIT.done;
  }
  if (format !== 'mermaid') throw new UsageError(`rein rules graph: --format is mermaid or json, not "${format}"`);
  const { toMermaid } = await import('../../visualizer/server/mermaid.js');
  io.stdout.write(toMermaid(machine) + '\n');
  return EXIT.done;
}
