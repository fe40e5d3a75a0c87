import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from 'rein/lib';
import { loadRules } from 'rein/run';
import { createReplayer, type ReplayResult } from 'rein/testing';
import { type FlagSpec, parseCommand, stringFlag } from '../args.js';
import type { Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';
import { type ActionMap, type ActionMapOverrides, actionMapWith, DEFAULT_ACTION_MAP } from '../replay/action-map.js';
import { actionText, compareResults, type RunChange } from '../replay/compare.js';
import { renderReplayReport } from '../replay/html-report.js';
import { type LoadedRuns, loadRuns } from '../replay/load-runs.js';
import { mergeResults, mergeWarnings, readResults } from '../replay/resolved.js';
import { writeRunTraces } from '../replay/run-traces.js';
import { summarize, summaryLines } from '../replay/summary.js';

const REPLAY_USAGE = `rein replay <file|dir>... [--rules F] [--compare F2] [--results R] [--out DIR] [--json]

Replays recorded agent runs open loop through rein's real statechart and
reports what the stall rules would have done: per run and in total, nudges by
rule and step, stops, steps saved on runs that ended on a limit, and resolved
runs stopped (false stops). The agent never sees a nudge: a nudge means "rein
would have interrupted here", a stop "rein would have ended the run here".

  <file|dir>      recorded runs: the realtraj compact JSONL (.jsonl/.gz), rein
                  trace.jsonl or run folders (.rein/runs), mini-swe-agent
                  .traj.json (1.x and 2.x), SWE-agent .traj, OpenHands
                  output.jsonl or event lists, ATIF trajectory.json, OpenAI chat
                  messages JSONL; directories are read recursively, the format
                  is told by each file's shape
  --rules F       the rules file to judge (default: rein's default rules)
  --preset P      start from a preset (default, strict, …) before --rules
  --compare F2    a second rules file ("default" for the default rules): show
                  what changes from --rules to F2 on the same runs
  --results R     which runs resolved: a SWE-bench results file (resolved_ids);
                  runs it does not name keep their own record (said on stderr)
  --map M         JSON overrides of the action mapping table (README)
  --test-cmd C    the verification command of runs that do not name one
  --runs          list every run with its nudges (rule@step, * while learning) and stop
  --out DIR       write report.html, and one trace.jsonl + replay page per run
                  with a nudge or a stop (open it in the visualizer)
  --json          print the summary (and comparison) as JSON

Malformed files and lines are skipped, named with file and line, and counted;
files in a directory that hold no run (predictions, results, configs) are
passed over and counted.`;

const FLAGS: FlagSpec = {
  rules: { type: 'string' },
  preset: { type: 'string' },
  compare: { type: 'string' },
  results: { type: 'string' },
  map: { type: 'string' },
  'test-cmd': { type: 'string' },
  runs: { type: 'boolean' },
  out: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

export async function replayCommand(argv: string[], io: Io, _env: NodeJS.ProcessEnv): Promise<number> {
  const parsed = parseCommand('rein replay', argv, FLAGS);
  if (parsed.values.help) {
    io.stdout.write(REPLAY_USAGE + '\n');
    return EXIT.done;
  }
  if (parsed.positionals.length === 0) throw new UsageError(`rein replay: give a file or directory of recorded runs\n\n${REPLAY_USAGE}`);
  const map = mapOf(stringFlag(parsed, 'map'));
  const loaded = loadAll(parsed.positionals, map);
  const results = stringFlag(parsed, 'results');
  if (results) {
    let file: ReturnType<typeof readResults>;
    try {
      file = readResults(results);
    } catch (error) {
      throw new UsageError(`rein replay: --results ${(error as Error).message}`);
    }
    const merge = mergeResults(loaded.runs, file);
    for (const warning of mergeWarnings(results, merge, loaded.runs.length)) io.stderr.write(`rein replay: ${warning}\n`);
  }
  const testCmd = stringFlag(parsed, 'test-cmd') ?? '';
  const preset = stringFlag(parsed, 'preset');
  const sideA = await side(stringFlag(parsed, 'rules'), preset, testCmd);
  const started = performance.now();
  const a = loaded.runs.map((run) => sideA.replayer.replay(run));
  const ms = performance.now() - started;
  const compareWith = stringFlag(parsed, 'compare');
  const sideB = compareWith ? await side(compareWith === 'default' ? undefined : compareWith, preset, testCmd) : null;
  const b = sideB ? loaded.runs.map((run) => sideB.replayer.replay(run)) : null;
  const changes = b ? compareResults(a, b) : null;
  const summaryA = summarize(a);
  const summaryB = b ? summarize(b) : null;
  const out = stringFlag(parsed, 'out');
  if (out) {
    mkdirSync(out, { recursive: true });
    const traces = await writeRunTraces(out, b ?? a, sideB?.rules ?? sideA.rules, changes);
    writeFileSync(
      join(out, 'report.html'),
      renderReplayReport({
        inputs: parsed.positionals,
        a: { label: sideA.label, results: a, summary: summaryA },
        ...(b && sideB && summaryB ? { b: { label: sideB.label, results: b, summary: summaryB } } : {}),
        changes,
        skipped: loaded.skipped,
        traces,
      }),
    );
  }
  if (parsed.values.json) {
    io.stdout.write(
      `${JSON.stringify({ inputs: parsed.positionals, formats: loaded.formats, skipped: loaded.skipped, ignored: loaded.ignored, ms: Math.round(ms), a: { rules: sideA.label, summary: summaryA, runs: a.map(runJson) }, ...(b && sideB ? { b: { rules: sideB.label, summary: summaryB, runs: b.map(runJson) }, changes } : {}) })}\n`,
    );
    return EXIT.done;
  }
  const lines = [`read ${loaded.runs.length} runs (${formatsText(loaded)}); replayed in ${(ms / 1000).toFixed(1)} s`];
  if (loaded.ignored.length > 0)
    lines.push(`passed over ${loaded.ignored.length} file${loaded.ignored.length === 1 ? '' : 's'} that hold no runs (--json lists them)`);
  if (loaded.skipped.length > 0)
    lines.push(
      `skipped ${loaded.skipped.length}:`,
      ...loaded.skipped.slice(0, 20).map((skip) => `  ${skip.why}`),
      ...(loaded.skipped.length > 20 ? [`  … and ${loaded.skipped.length - 20} more`] : []),
    );
  lines.push(...summaryLines(sideA.label, summaryA));
  if (summaryB && sideB) lines.push(...summaryLines(sideB.label, summaryB));
  if (parsed.values.runs) lines.push('', ...a.map(runLine));
  if (changes) lines.push('', ...changeLines(changes, sideA.label, sideB!.label));
  if (out) lines.push('', `wrote ${join(out, 'report.html')}`);
  io.stdout.write(lines.join('\n') + '\n');
  return EXIT.done;
}

async function side(rulesPath: string | undefined, preset: string | undefined, testCmd: string) {
  const loaded = await loadRules({ ...(preset ? { preset } : {}), ...(rulesPath ? { configPath: rulesPath } : {}) });
  const label = rulesPath ?? `preset ${preset ?? 'default'}`;
  return {
    label,
    rules: loaded.rules,
    replayer: createReplayer({
      rules: loaded.rules,
      testCmd,
      extensions: { guards: loaded.guards, actions: loaded.actions, ...(loaded.configPath ? { source: loaded.configPath } : {}) },
    }),
  };
}

function mapOf(path: string | undefined): ActionMap {
  if (!path) return DEFAULT_ACTION_MAP;
  let overrides: ActionMapOverrides;
  try {
    overrides = JSON.parse(readFileSync(path, 'utf8')) as ActionMapOverrides;
  } catch (error) {
    throw new UsageError(`rein replay: --map ${path}: ${(error as Error).message}`);
  }
  try {
    return actionMapWith(overrides);
  } catch (error) {
    throw new UsageError(`rein replay: --map ${path}: ${(error as Error).message}`);
  }
}

function loadAll(inputs: readonly string[], map: ActionMap): LoadedRuns {
  const all: LoadedRuns = { runs: [], skipped: [], ignored: [], formats: {} };
  for (const input of inputs) {
    let loaded: LoadedRuns;
    try {
      loaded = loadRuns(input, map);
    } catch (error) {
      throw new UsageError(
        `rein replay: ${input}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (error as Error).message}`,
      );
    }
    all.runs.push(...loaded.runs);
    all.skipped.push(...loaded.skipped);
    all.ignored.push(...loaded.ignored);
    for (const [format, count] of Object.entries(loaded.formats)) all.formats[format] = (all.formats[format] ?? 0) + count;
  }
  return all;
}

const formatsText = (loaded: LoadedRuns) =>
  Object.entries(loaded.formats)
    .map(([format, count]) => `${format} ${count}`)
    .join(', ') || 'none';

function runJson(result: ReplayResult) {
  return {
    id: result.run.id,
    resolved: result.run.resolved,
    exit: result.run.exitStatus ?? null,
    actions: result.run.steps.length,
    nudges: result.nudges.map((nudge) => ({
      step: nudge.index + 1,
      rule: nudge.rule,
      count: nudge.count,
      learning: nudge.learning,
      novelty: nudge.novelty,
      action: actionText(result.run.steps[nudge.index]!),
    })),
    stop: result.stop ? { step: result.stop.index + 1, reason: result.stop.reason } : null,
    savedActions: result.savedActions,
  };
}

function runLine(result: ReplayResult): string {
  const nudges = result.nudges.map((nudge) => `${nudge.rule}@${nudge.index + 1}${nudge.learning ? '*' : ''}`).join(' ') || '-';
  const stop = result.stop ? ` STOP@${result.stop.index + 1}` : '';
  const resolved = result.run.resolved === null ? '?' : result.run.resolved ? 'resolved' : 'unresolved';
  return `${result.run.id} [${resolved}, ${result.run.steps.length} actions] ${nudges}${stop}`;
}

function changeLines(changes: readonly RunChange[], labelA: string, labelB: string): string[] {
  if (changes.length === 0) return [`no run changes from ${labelA} to ${labelB}`];
  const lines = [`${changes.length} runs change from ${labelA} to ${labelB}:`];
  for (const change of changes) {
    lines.push(`${change.id} (${change.resolved === null ? 'resolved?' : change.resolved ? 'resolved' : 'unresolved'})`);
    for (const [sign, nudges] of [
      ['-', change.lost],
      ['+', change.gained],
    ] as const) {
      for (const nudge of nudges)
        lines.push(
          `  ${sign} ${nudge.rule} at step ${nudge.index + 1}${nudge.learning ? ' (while learning)' : ''}`,
          ...nudge.around.map((line) => `      ${line}`),
        );
    }
    if (change.stopA !== change.stopB)
      lines.push(`  stop: ${change.stopA === null ? 'none' : `step ${change.stopA + 1}`} → ${change.stopB === null ? 'none' : `step ${change.stopB + 1}`}`);
  }
  return lines;
}
