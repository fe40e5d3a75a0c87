import type { HarnessMachine } from '../../machines/harness-machine.js';
import { UsageError } from '../../lib/errors.js';
import type { Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';
import { listTransitions } from '../../testing/coverage.js';

/** Prints the statechart the rules build, as Mermaid or as JSON (states and transitions). */
export function printGraph(machine: HarnessMachine, format: string, io: Io): number {
  if (format === 'json') {
    io.stdout.write(JSON.stringify({ machine: machine.toJSON(), transitions: listTransitions(machine) }, null, 2) + '\n');
    return EXIT.done;
  }
  if (format !== 'mermaid') throw new UsageError(`rein rules graph: --format is mermaid or json, not "${format}"`);
  throw new UsageError('rein rules graph: mermaid output arrives with the visualizer; use --format json for now');
}
