import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { didYouMean, UsageError } from 'rein/lib';
import { createHarnessMachine, formatInertRules, inertRules, listTransitions } from 'rein/machines';
import { approvalOverride, defaultRules, describeApprovals, diffRules, ENDPOINT_PROFILES, hasHooks, PRESETS, presetNames, trustHooks } from 'rein/rules';
import { type LoadedRules, loadRules } from 'rein/run';
import { type CoverageReport, checkCoverage } from 'rein/testing';
import { type FlagSpec, type ParsedCommand, parseCommand, stringFlag } from '../args.js';
import type { Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';
import { printGraph, printMachineGraph } from './rules-graph.js';
import { listGuards, printGuards } from './rules-guards.js';
import { printTools } from './rules-tools.js';
import { trustRepository } from './trust.js';

const RULES_USAGE = `rein rules <show|check|guards|graph|coverage|presets|profiles|trust|trust-hooks|tools> [--config FILE] [--preset NAME] [--approval MODE] [--workspace DIR]

  show       the effective rules as JSON (--diff: only what differs from the defaults, the default with --preset; --full: everything);
             the approval rules in effect per phase, in the order they are checked, follow on stderr
  guards     every guard a rules file may name: parameters, defaults, what it reads, an example (--format json)
  graph      the statechart these rules build, phase by phase (--all: every state; --diff: only what differs from the defaults); --format mermaid (default) or json;
             --machine mcp-server: an MCP server's lifecycle
  check      what the rules say that can never fire or changes nothing (an exit the phase's tools cannot make true, one an earlier
             exit always beats, a phase nothing enters, a limit the budget reaches first), each with the reason and the fix; exit 1 on a warning
  coverage   drive every transition of that statechart with generated paths; exit 1 if one is not covered
             (--why TEXT: how the search reached each transition whose name contains TEXT, or why it did not)
  presets    the ablation presets and the finding each reproduces
  profiles   the endpoint profiles (model.profile): the model settings each sets for its server; a setting beside it wins
  trust      after reviewing it: let rein load the rules file in --workspace (default: .); the same as \`rein trust\`
  trust-hooks  after reviewing them: let the hooks the rules file in --workspace declares run (each with its where: sandbox or host)
  tools      every tool a run would offer, in order, and which each phase allows; starts the MCP servers to list theirs (--format json)

Without --config, rein.config.json|yaml|yml|ts|mts|mjs|js in the current directory is used if present.
Presets: ${presetNames().join(', ')}.`;

const RULES_FLAGS: FlagSpec = {
  config: { type: 'string' },
  preset: { type: 'string' },
  format: { type: 'string' },
  machine: { type: 'string' },
  why: { type: 'string' },
  workspace: { type: 'string' },
  approval: { type: 'string' },
  diff: { type: 'boolean' },
  all: { type: 'boolean' },
  full: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

export async function rulesCommand(argv: string[], io: Io): Promise<number> {
  const parsed = parseCommand('rein rules', argv, RULES_FLAGS);
  const [action, ...extra] = parsed.positionals;
  if (parsed.values.help || !action) {
    io.stdout.write(RULES_USAGE + '\n');
    return action || parsed.values.help ? EXIT.done : EXIT.usage;
  }
  if (extra.length > 0) throw new UsageError(`rein rules: unexpected argument "${extra[0]}"`);
  if (action === 'presets') {
    io.stdout.write(PRESETS.map((preset) => `${preset.name.padEnd(22)} ${preset.finding}`).join('\n') + '\n');
    return EXIT.done;
  }
  if (action === 'profiles') {
    io.stdout.write(ENDPOINT_PROFILES.map((profile) => `${profile.name.padEnd(18)} ${profile.server}: ${JSON.stringify(profile.settings)}`).join('\n') + '\n');
    return EXIT.done;
  }
  // The older spelling of `rein trust`.
  if (action === 'trust') return trustRepository(stringFlag(parsed, 'workspace') ?? '.', undefined, io);
  const loaded = await load(parsed);
  if (action === 'trust-hooks') return trustRepositoryHooks(loaded, resolve(stringFlag(parsed, 'workspace') ?? '.'), io);
  if (action === 'show') return show(loaded, io, Boolean(parsed.values.diff) || (Boolean(stringFlag(parsed, 'preset')) && !parsed.values.full));
  if (action === 'guards') return printGuards(listGuards(loaded.guards, loaded.configPath), stringFlag(parsed, 'format') ?? 'text', io);
  if (action === 'graph' && stringFlag(parsed, 'machine') !== undefined)
    return printMachineGraph(stringFlag(parsed, 'machine')!, stringFlag(parsed, 'format') ?? 'mermaid', io);
  if (action === 'graph')
    return printGraph(createHarnessMachine(loaded.rules, { guards: loaded.guards, actions: loaded.actions }), stringFlag(parsed, 'format') ?? 'mermaid', io, {
      all: Boolean(parsed.values.all),
      ...(parsed.values.diff ? { diffFrom: createHarnessMachine(defaultRules()) } : {}),
    });
  if (action === 'coverage') return coverage(loaded, io, stringFlag(parsed, 'why'));
  if (action === 'check') return check(loaded, io);
  if (action === 'tools') return printTools(loaded, resolve(stringFlag(parsed, 'workspace') ?? '.'), stringFlag(parsed, 'format') ?? 'text', io, process.env);
  throw new UsageError(`rein rules: unknown action "${action}"${didYouMean(action, ACTIONS)}\n\n${RULES_USAGE}`);
}

function load(parsed: ParsedCommand): Promise<LoadedRules> {
  return loadRules({
    preset: stringFlag(parsed, 'preset'),
    configPath: stringFlag(parsed, 'config'),
    workspace: resolve(stringFlag(parsed, 'workspace') ?? '.'),
    overrides: approvalOverride(stringFlag(parsed, 'approval')),
  });
}

const ACTIONS = ['show', 'check', 'guards', 'graph', 'coverage', 'presets', 'profiles', 'trust', 'trust-hooks', 'tools'];

function trustRepositoryHooks(loaded: LoadedRules, workspace: string, io: Io): number {
  const { hooks } = loaded.rules;
  if (!hasHooks(hooks)) {
    io.stderr.write(`rein: the rules for ${workspace} declare no hooks; nothing to trust\n`);
    return EXIT.done;
  }
  io.stdout.write(JSON.stringify(hooks, null, 2) + '\n');
  trustHooks(realpathSync(workspace), hooks);
  io.stderr.write(`rein: trusted these hooks for ${workspace}; if the rules file changes them, they are refused again until trusted\n`);
  return EXIT.done;
}

function show(loaded: LoadedRules, io: Io, onlyChanges: boolean): number {
  if (!onlyChanges) {
    io.stderr.write(`rein: effective rules from ${loaded.sources.join(' + ')} + defaults (--diff for only what differs from the defaults)\n`);
    io.stdout.write(JSON.stringify(loaded.rules, null, 2) + '\n');
    io.stderr.write(describeProfile(loaded.rules));
    io.stderr.write(describeApprovals(loaded.rules));
    io.stderr.write(inertWarnings(loaded));
    return EXIT.done;
  }
  io.stderr.write(`rein: what ${loaded.sources.join(' + ')} changes from the defaults (--full for the whole effective rules)\n`);
  io.stdout.write(JSON.stringify(diffRules(defaultRules(), loaded.rules) ?? {}, null, 2) + '\n');
  io.stderr.write(describeApprovals(loaded.rules));
  io.stderr.write(inertWarnings(loaded));
  return EXIT.done;
}

/** The warnings of `rules check`, for the other commands that show the rules: one line each, nothing when none. */
function inertWarnings(loaded: LoadedRules): string {
  const warnings = inertRules(loaded.rules).filter((entry) => entry.level === 'warning');
  return formatInertRules(warnings)
    .map((line) => `rein: ${line}\n`)
    .join('');
}

function check(loaded: LoadedRules, io: Io): number {
  const found = inertRules(loaded.rules);
  const warnings = found.filter((entry) => entry.level === 'warning').length;
  io.stdout.write(
    formatInertRules(found)
      .map((line) => `${line}\n`)
      .join(''),
  );
  io.stdout.write(
    `rein: ${loaded.sources.join(' + ')}: ${warnings} warning(s), ${found.length - warnings} note(s) on parts that fire elsewhere or are inherited defaults\n`,
  );
  return warnings > 0 ? EXIT.unfinished : EXIT.done;
}

async function coverage(loaded: LoadedRules, io: Io, why?: string): Promise<number> {
  const machine = createHarnessMachine(loaded.rules, { guards: loaded.guards, actions: loaded.actions });
  // A --why naming no transition is refused before the search, which takes a while.
  if (why !== undefined && !listTransitions(machine).some((info) => info.key.includes(why)))
    throw new UsageError(`rein rules coverage --why: no transition's name contains "${why}"; \`rein rules coverage\` lists them`);
  // Each covered transition's path is run again with scripted actors, as a real run would invoke them.
  const { report, replayFailures, problems, notes, text } = await checkCoverage(machine, loaded.rules, loaded.sources.join(' + '));
  if (why !== undefined) return explainSearch(report, why, io);
  io.stdout.write(text + '\n');
  io.stdout.write(
    `  every covered transition's path replayed with scripted actors (machine.provide): ${report.witnesses.size}/${report.covered.size + replayFailures.length}\n`,
  );
  if (notes.length > 0)
    io.stdout.write(
      `rein: ${notes.length} transition(s) marked i cannot be taken by construction (an exit another one always beats here, taken in another phase): information, not a failure\n`,
    );
  if (problems.length > 0) {
    const notReplayed = replayFailures.length > 0 ? ` (${replayFailures.length} of them taken by the search but not on replay)` : '';
    io.stdout.write(
      `rein: ${report.missing.length - notes.length} transition(s) not covered${notReplayed}, ${report.unreachableStates.length} state(s) unreachable under these rules (--why TEXT explains one)\n`,
    );
  }
  return problems.length > 0 ? EXIT.unfinished : EXIT.done;
}

/** `rules coverage --why TEXT`: for each transition whose name contains TEXT, the path the search took to it, or why it found none. */
function explainSearch(report: CoverageReport, text: string, io: Io): number {
  const chosen = report.transitions.filter((info) => info.key.includes(text));
  for (const info of chosen) {
    const witness = report.witnesses.get(info.key);
    if (witness) {
      io.stdout.write(`✓ ${info.key}\n  taken ${report.covered.get(info.key)}; the path from the start:\n`);
      for (const [index, event] of witness.path.entries()) io.stdout.write(`  ${String(index + 1).padStart(4)}. ${describeEvent(event)}\n`);
      io.stdout.write(`  then ${describeEvent(witness.event)}\n`);
      continue;
    }
    const siblings = report.transitions.filter((other) => other.source === info.source && other.event === info.event);
    const before = siblings.slice(0, siblings.indexOf(info));
    io.stdout.write(`${report.info?.has(info.key) ? 'i' : '✗'} ${info.key}\n  ${report.reasons?.get(info.key) ?? 'no generated path takes it'}\n`);
    const reachedFrom = report.transitions.filter((other) => report.covered.has(other.key) && other.targets.includes(info.source)).length;
    io.stdout.write(`  its source ${info.source} is entered by ${reachedFrom} covered transition(s)\n`);
    if (before.length > 0) {
      io.stdout.write(`  tried before it from ${info.source}, in order:\n`);
      for (const other of before) io.stdout.write(`    ${report.covered.has(other.key) ? '✓' : '✗'} ${other.key}\n`);
    }
  }
  return EXIT.done;
}

/** One event of a witness path in words: what the model replied, what the tools returned; others by type. */
function describeEvent(event: { type: string; [key: string]: unknown }): string {
  const output = (event.output ?? {}) as {
    message?: { content?: unknown; tool_calls?: Array<{ function?: { name?: unknown; arguments?: unknown } }> };
    results?: Array<{ name?: unknown; outcome?: { content?: unknown } }>;
    finish?: unknown;
  };
  const cut = (text: unknown, size: number) => {
    const flat = String(text ?? '').replace(/\s+/g, ' ');
    return flat.length > size ? `${flat.slice(0, size - 3)}...` : flat;
  };
  if (event.type === 'xstate.done.actor.model') {
    const calls = (output.message?.tool_calls ?? []).map((call) => `${call.function?.name}(${cut(call.function?.arguments, 60)})`);
    return `the model replies${calls.length > 0 ? ` with ${calls.join(', ')}` : ` "${cut(output.message?.content, 60)}" and no call`}`;
  }
  if (event.type === 'xstate.done.actor.tools') {
    const results = (output.results ?? []).map((result) => `${result.name} → "${cut(result.outcome?.content, 60)}"`);
    return `the tools return ${[...results, ...(output.finish ? ['finish'] : [])].join(', ') || 'nothing'}`;
  }
  if (event.type === 'xstate.done.actor.contextManager') return 'the context manager builds the request';
  const { type, ...rest } = event;
  return Object.keys(rest).length === 0 ? type : `${type} ${cut(JSON.stringify(rest), 160)}`;
}

/** Which model settings the endpoint profile gave, as they are in effect (a setting beside the profile may have changed one). */
function describeProfile(rules: LoadedRules['rules']): string {
  const profile = ENDPOINT_PROFILES.find((entry) => entry.name === rules.model.profile);
  if (!profile) return '';
  const model = rules.model as Record<string, unknown>;
  const fields = Object.entries(profile.settings).map(([key, value]) => {
    const effective = model[key];
    const same = JSON.stringify(effective) === JSON.stringify(value);
    return `model.${key} ${JSON.stringify(effective)}${same ? '' : ` (the profile's ${JSON.stringify(value)}, changed beside it)`}`;
  });
  return `rein: model.profile "${profile.name}" (${profile.server}): ${fields.join(', ')}\n`;
}
