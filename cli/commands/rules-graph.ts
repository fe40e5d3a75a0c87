import { UsageError } from 'rein/lib';
import type { HarnessMachine } from 'rein/machines';
import type { Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';

interface GraphOptions {
  /** Every state of every phase's turn cycle, not only the phases and how a run ends. */
  all?: boolean;
  /** Print only the lines that differ from this machine's (the default rules'): `+` added, `-` removed. */
  diffFrom?: HarnessMachine;
}

/**
 * Prints the statechart the rules build: Mermaid `stateDiagram-v2` text at
 * phase level (the README's chart; `all` for every state), its difference
 * from the defaults, or JSON with every state, transition (guard, params,
 * actions) and the laid-out positions the visualizer draws.
 */
export async function printGraph(machine: HarnessMachine, format: string, io: Io, options: GraphOptions = {}): Promise<number> {
  if (format === 'json') {
    if (options.diffFrom) throw new UsageError('rein rules graph: --diff prints Mermaid lines; drop --format json');
    const { buildStatechartGraph } = await import('rein-visualizer/server/statechart-graph.js');
    io.stdout.write(JSON.stringify(await buildStatechartGraph(machine), null, 2) + '\n');
    return EXIT.done;
  }
  if (format !== 'mermaid') throw new UsageError(`rein rules graph: --format is mermaid or json, not "${format}"`);
  const { toMermaid } = await import('rein-visualizer/server/mermaid.js');
  const { toPhaseMermaid } = await import('rein-visualizer/server/mermaid-overview.js');
  const draw = (chart: HarnessMachine) => (options.all ? toMermaid(chart) : toPhaseMermaid(chart)).trimEnd();
  if (!options.diffFrom) {
    io.stdout.write(draw(machine) + '\n');
    return EXIT.done;
  }
  const before = new Set(draw(options.diffFrom).split('\n'));
  const after = new Set(draw(machine).split('\n'));
  const lines = [
    ...[...after].filter((line) => !before.has(line)).map((line) => `+ ${line.trim()}`),
    ...[...before].filter((line) => !after.has(line)).map((line) => `- ${line.trim()}`),
  ];
  io.stdout.write(lines.length > 0 ? lines.join('\n') + '\n' : '');
  io.stderr.write(
    `rein: ${lines.length > 0 ? `${lines.length} line${lines.length > 1 ? 's' : ''} of the ${options.all ? 'whole' : 'phase-level'} chart differ from the default rules'` : "the same chart as the default rules'"}\n`,
  );
  return EXIT.done;
}

/** The other machines rein runs, by the name `--machine` takes. */
const OTHER_MACHINES = ['mcp-server'] as const;

/**
 * `rein rules graph --machine mcp-server`: the lifecycle every MCP server's
 * actor follows (actors/mcp/server-machine.ts), as Mermaid text.
 */
export async function printMachineGraph(name: string, format: string, io: Io): Promise<number> {
  if (!(OTHER_MACHINES as readonly string[]).includes(name)) throw new UsageError(`rein rules graph: --machine is ${OTHER_MACHINES.join(', ')}, not "${name}"`);
  if (format !== 'mermaid') throw new UsageError(`rein rules graph --machine ${name}: only --format mermaid`);
  const [{ toMermaid }, { serverMachine }] = await Promise.all([import('rein-visualizer/server/mermaid.js'), import('rein/mcp')]);
  io.stdout.write(toMermaid(serverMachine) + '\n');
  return EXIT.done;
}
