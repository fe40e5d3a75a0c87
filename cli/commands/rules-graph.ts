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

/** The other machines rein runs, by the name `--machine` takes. */
const OTHER_MACHINES = ['mcp-server'] as const;

/**
 * `rein rules graph --machine mcp-server`: the lifecycle every MCP server's
 * actor follows (mcp/server-machine.ts), as Mermaid text.
 */
export async function printMachineGraph(name: string, format: string, io: Io): Promise<number> {
  if (!(OTHER_MACHINES as readonly string[]).includes(name)) throw new UsageError(`rein rules graph: --machine is ${OTHER_MACHINES.join(', ')}, not "${name}"`);
  if (format !== 'mermaid') throw new UsageError(`rein rules graph --machine ${name}: only --format mermaid`);
  const [{ toMermaid }, { serverMachine }] = await Promise.all([import('../../visualizer/server/mermaid.js'), import('../../mcp/server-machine.js')]);
  io.stdout.write(toMermaid(serverMachine) + '\n');
  return EXIT.done;
}
