import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UsageError } from 'rein/lib';
import { compareRecords } from 'rein-eval/comparison.js';
import { readResultsOrFail } from 'rein-eval/results-file.js';
import type { RunRecord } from 'rein-eval/run-record.js';
import { formatComparison } from 'rein-eval/terminal.js';
import { type FlagSpec, parseCommand } from '../args.js';
import type { Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';
import { areRunDirs, compareRuns } from './compare-runs.js';

const COMPARE_USAGE = `rein compare <A> <B> [--json]
rein compare <DIR> [--json]
rein compare <run-dir> <fork-dir>… [--json]

Pairs two sets of eval results by task and prints the tasks in both, only_a
(A solved, B failed), only_b, the exact two-sided McNemar p-value, and the
mean cost, steps and tokens with their deltas (B − A).

  A, B     a results.jsonl or an eval output directory; add #CONFIG to pick one
           configuration when it holds several (e.g. out#default out#no-plan)
  DIR      an eval output directory with exactly two configurations
  --json   print the comparison as JSON

Given a run directory and its forks (rein fork), sets them side by side from
each fork point: model, rules, how each ended, its own steps, tokens and cost,
and what it changed in the workspace from there.

With repeats, each task counts as solved when a strict majority of its runs
solved it (ties count as unsolved).`;

const COMPARE_FLAGS: FlagSpec = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } };

interface Side {
  source: string;
  label: string;
  records: RunRecord[];
}

export async function compareCommand(argv: string[], io: Io, _env: NodeJS.ProcessEnv): Promise<number> {
  const parsed = parseCommand('rein compare', argv, COMPARE_FLAGS);
  if (parsed.values.help) {
    io.stdout.write(COMPARE_USAGE + '\n');
    return EXIT.done;
  }
  // A run and its forks (run directories), rather than eval results.
  if (areRunDirs(parsed.positionals)) return compareRuns(parsed.positionals, io, Boolean(parsed.values.json));
  const warn = (text: string) => {
    io.stderr.write(`${text}\n`);
  };
  const [a, b] = sidesOf(parsed.positionals, warn);
  const comparison = compareRecords(a.records, b.records, a.label, b.label);
  if (comparison.tasks.length === 0)
    throw new UsageError(`rein compare: no task has results on both sides (${a.label}: ${a.records.length} runs, ${b.label}: ${b.records.length} runs)`);
  if (parsed.values.json) {
    io.stdout.write(
      JSON.stringify({
        a: { label: a.label, source: a.source },
        b: { label: b.label, source: b.source },
        tasks: comparison.tasks.length,
        only_a: comparison.onlyA.length,
        only_b: comparison.onlyB.length,
        p_value: comparison.pValue,
        resolved_a: comparison.resolvedA,
        resolved_b: comparison.resolvedB,
        by_majority: comparison.byMajority,
        paired_tasks: comparison.tasks,
        only_a_tasks: comparison.onlyA,
        only_b_tasks: comparison.onlyB,
        missing_in_a: comparison.missingInA,
        missing_in_b: comparison.missingInB,
        cost: comparison.cost,
        steps: comparison.steps,
        tokens: comparison.tokens,
      }) + '\n',
    );
  } else {
    io.stdout.write(formatComparison(comparison, { a: a.source, b: b.source }) + '\n');
  }
  return EXIT.done;
}

function sidesOf(positionals: string[], warn: (text: string) => void): [Side, Side] {
  if (positionals.length === 1 && positionals[0]!.lastIndexOf('#') > 0) {
    const one = sideOf(positionals[0]!, warn);
    const others = labelsOf(readResultsOrFail(one.source, warn)).filter((label) => label !== one.label);
    const hint = others.length > 0 ? `: rein compare ${positionals[0]} ${one.source}#${others[0]}` : '';
    throw new UsageError(`rein compare: ${positionals[0]} is one side; name the other too${hint}`);
  }
  if (positionals.length === 1) {
    const source = positionals[0]!;
    const records = readResultsOrFail(source, warn);
    const labels = labelsOf(records, source);
    if (labels.length !== 2)
      throw new UsageError(
        `rein compare: ${source} holds ${labels.length} configurations (${labels.join(', ')}); name two: rein compare ${source}#A ${source}#B`,
      );
    return [side(source, labels[0]!, records), side(source, labels[1]!, records)];
  }
  if (positionals.length !== 2) throw new UsageError(`rein compare: expected <A> <B>\n\n${COMPARE_USAGE}`);
  return [sideOf(positionals[0]!, warn), sideOf(positionals[1]!, warn)];
}

function sideOf(spec: string, warn: (text: string) => void): Side {
  const hash = spec.lastIndexOf('#');
  const source = hash > 0 ? spec.slice(0, hash) : spec;
  const records = readResultsOrFail(source, warn);
  const labels = labelsOf(records);
  if (hash > 0) {
    const label = spec.slice(hash + 1);
    if (!labels.includes(label)) throw new UsageError(`rein compare: ${source} has no configuration "${label}" (it has ${labels.join(', ') || 'no runs'})`);
    return side(source, label, records);
  }
  if (labels.length !== 1)
    throw new UsageError(`rein compare: ${source} holds ${labels.length} configurations (${labels.join(', ')}); pick one with ${source}#NAME`);
  return side(source, labels[0]!, records);
}

function side(source: string, label: string, records: RunRecord[]): Side {
  return { source, label, records: records.filter((record) => record.config === label) };
}

/**
 * Configuration labels: in the order the eval was asked for them (its eval.json, so the first
 * `--preset` is the baseline A), then any others in order of first appearance.
 */
function labelsOf(records: RunRecord[], source?: string): string[] {
  const seen = [...new Set(records.map((record) => record.config))];
  const folder = source?.endsWith('.jsonl') ? dirname(source) : source;
  const manifest = folder ? join(folder, 'eval.json') : '';
  if (!manifest || !existsSync(manifest)) return seen;
  try {
    const asked = (JSON.parse(readFileSync(manifest, 'utf8')) as { configurations?: Array<{ label?: unknown }> }).configurations ?? [];
    const ordered = asked.map((config) => String(config.label)).filter((label) => seen.includes(label));
    return [...ordered, ...seen.filter((label) => !ordered.includes(label))];
  } catch {
    return seen;
  }
}
