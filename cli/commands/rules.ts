import { resolve } from 'node:path';
import { UsageError } from '../../lib/errors.js';
import { createHarnessMachine } from '../../machines/harness-machine.js';
import { loadRules, type LoadedRules } from '../../rules/load.js';
import { PRESETS } from '../../rules/presets.js';
import { checkCoverage } from '../../testing/coverage-check.js';
import { parseCommand, stringFlag, type FlagSpec, type ParsedCommand } from '../args.js';
import type { Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';
import { printGraph } from './rules-graph.js';
import { trustRulesFiles } from '../../lib/rules-trust.js';

export const RULES_USAGE = `rein rules <show|graph|coverage|presets|trust> [--config FILE] [--preset NAME] [--workspace DIR]

  show       the effective rules (preset, then rules file, then defaults) as JSON
  graph      the statechart these rules build: --format mermaid (default) or json
  coverage   drive every transition of that statechart with generated paths; exit 1 if one is untaken
  presets    the ablation presets and the finding each reproduces
  trust      after reviewing them: load the rules files an agent run wrote in --workspace (default: .) again

Without --config, rein.config.json|ts|mjs|js in the current directory is used if present.`;

const RULES_FLAGS: FlagSpec = {
  config: { type: 'string' }, preset: { type: 'string' }, format: { type: 'string' }, workspace: { type: 'string' }, help: { type: 'boolean', short: 'h' },
};

export async function rulesCommand(argv: string[], io: Io): Promise<number> {
  const parsed = parseCommand('rein rules', argv, RULES_FLAGS);
  const [action, ...extra] = parsed.positionals;
  if (parsed.values.help || !action) { io.stdout.write(RULES_USAGE + '\n'); return action || parsed.values.help ? EXIT.done : EXIT.usage; }
  if (extra.length > 0) throw new UsageError(`rein rules: unexpected argument "${extra[0]}"`);
  if (action === 'presets') { io.stdout.write(PRESETS.map((preset) => `${preset.name.padEnd(22)} ${preset.finding}`).join('\n') + '\n'); return EXIT.done; }
  if (action === 'trust') {
    const workspace = resolve(stringFlag(parsed, 'workspace') ?? '.');
    const trusted = trustRulesFiles(workspace);
    io.stderr.write(trusted.length > 0 ? `rein: trusted ${trusted.join(', ')} in ${workspace}\n` : `rein: no rules files in ${workspace} were waiting for review\n`);
    return EXIT.done;
  }
  const loaded = await load(parsed);
  if (action === 'show') return show(loaded, io);
  if (action === 'graph') return printGraph(createHarnessMachine(loaded.rules, { guards: loaded.guards, actions: loaded.actions }), stringFlag(parsed, 'format') ?? 'mermaid', io);
  if (action === 'coverage') return coverage(loaded, io);
  throw new UsageError(`rein rules: unknown action "${action}"\n\n${RULES_USAGE}`);
}

function load(parsed: ParsedCommand): Promise<LoadedRules> {
  return loadRules({ preset: stringFlag(parsed, 'preset'), configPath: stringFlag(parsed, 'config'), workspace: resolve(stringFlag(parsed, 'workspace') ?? '.') });
}

function show(loaded: LoadedRules, io: Io): number {
  io.stderr.write(`rein: effective rules from ${loaded.sources.join(' + ')} + defaults\n`);
  io.stdout.write(JSON.stringify(loaded.rules, null, 2) + '\n');
  return EXIT.done;
}

async function coverage(loaded: LoadedRules, io: Io): Promise<number> {
  const machine = createHarnessMachine(loaded.rules, { guards: loaded.guards, actions: loaded.actions });
  // Each covered transition's path is run again with scripted actors, as a real run would invoke them.
  const { report, replayFailures, problems, text } = await checkCoverage(machine, loaded.rules, loaded.sources.join(' + '));
  io.stdout.write(text + '\n');
  io.stdout.write(`  replayed with scripted actors (machine.provide): ${report.witnesses.size - replayFailures.length}/${report.witnesses.size}\n`);
  for (const failure of replayFailures) io.stdout.write(`  ✗ ${failure}\n`);
  if (problems.length > 0) io.stderr.write(`rein: ${report.missing.length} transition(s) never taken, ${report.unreachableStates.length} state(s) unreachable, ${replayFailures.length} path(s) that did not replay under these rules\n`);
  return problems.length > 0 ? EXIT.unfinished : EXIT.done;
}
