import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScriptedModel, scriptedModelSource } from 'rein/actors';
import { packageRoot, userStateDir } from 'rein/lib';
import { presetNames } from 'rein/rules';
import { loadRules, type ModelSource, newRunId } from 'rein/run';
import type { RunObservers } from 'rein-visualizer/server/live-viz.js';
import { keepsServing, parsePort } from 'rein-visualizer/server/viz-flags.js';
import { type FlagSpec, parseCommand, stringFlag } from '../args.js';
import { DEMO_TASK, DEMO_TEST_CMD, demoScript } from '../demo/demo-model.js';
import { executeRun, type Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';
import { OTEL_FLAGS, OTEL_USAGE, otelSettings } from '../otel-flags.js';

/** With a visualizer watching, the scripted model pauses before each reply: an instant run leaves nothing to watch. */
const VIZ_PACE_MS = 450;

const DEMO_USAGE = `rein demo [--preset NAME] [--config FILE] [--viz] [--viz-port N] [--viz-exit] [--json] [--run-dir DIR] [--otel URL]

Copies a small buggy repo to a temp dir and runs the full harness on it with a
built-in scripted model: plan, build, a refused finish, verify, fix, finish.
Offline, no API key. The temp copy is removed when the demo ends; the run's record
(trace, run.json) goes to --run-dir, or by default to rein's state folder
($XDG_STATE_HOME/rein/demo-runs/, else ~/.local/state/rein/demo-runs/; the newest ten kept).

  --preset NAME  start from a preset (${presetNames().join(', ')})
  --config FILE  run the demo under your rules file (.json, .yaml, .ts, .mjs, …): a quick
                 offline way to try a rules change and see its chart and trace

  --viz          watch it in the live visualizer (the URL is printed; the scripted
                 model then takes ${VIZ_PACE_MS} ms a reply so there is something to watch)
  --viz-port N   the visualizer's port (default: any free port)
  --viz-exit     stop the visualizer when the run ends (default: serve until Ctrl+C;
                 also when CI is set)
${OTEL_USAGE}`;

const DEMO_FLAGS: FlagSpec = {
  preset: { type: 'string' },
  config: { type: 'string' },
  viz: { type: 'boolean' },
  'viz-port': { type: 'string' },
  'viz-exit': { type: 'boolean' },
  json: { type: 'boolean' },
  'run-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  ...OTEL_FLAGS,
};

/** The bundled demo repo, shipped with the core package (rein/demo/repo). */
function demoRepoPath(): string {
  return join(packageRoot(), 'cli', 'demo', 'repo');
}

export async function demoCommand(argv: string[], io: Io, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const parsed = parseCommand('rein demo', argv, DEMO_FLAGS);
  if (parsed.values.help) {
    io.stdout.write(DEMO_USAGE + '\n');
    return EXIT.done;
  }
  const viz = Boolean(parsed.values.viz);
  const vizPort = parsePort('rein demo', '--viz-port', stringFlag(parsed, 'viz-port'));
  const otel = await otelSettings('rein demo', parsed, env, (text) => io.stderr.write(text));
  // Rules first: a bad rules file stops here, before anything is copied or run.
  const loaded = await loadRules({
    preset: stringFlag(parsed, 'preset'),
    configPath: stringFlag(parsed, 'config'),
    overrides: { verification: { command: DEMO_TEST_CMD } },
  });
  const { rules } = loaded;
  const copy = demoWorkspace();
  const workspace = copy.path;
  const runDir = stringFlag(parsed, 'run-dir') ?? demoRunDir(env);
  io.stderr.write(`rein demo: copied the demo repo to ${workspace} (removed when the run ends; its record stays in ${runDir})\n`);
  const execute = async (observers: RunObservers) => {
    const code = await executeRun({
      io,
      json: Boolean(parsed.values.json),
      otel,
      run: {
        workspace,
        task: DEMO_TASK,
        testCmd: DEMO_TEST_CMD,
        rules,
        model: viz ? pacedDemoModel() : scriptedModelSource('demo-scripted', demoScript),
        runDir,
        guards: loaded.guards,
        actions: loaded.actions,
        tools: loaded.tools,
        ...(loaded.configPath ? { configPath: loaded.configPath } : {}),
        rulesSources: loaded.sources,
        onTrace: observers.onTrace,
        inspect: observers.inspect,
      },
      onStart: observers.onStart,
    });
    if (copy.runEnded(code)) io.stderr.write(`rein demo: kept the copy of the demo repo at ${workspace} for rein resume\n`);
    return code;
  };
  if (!viz) return execute({});
  // The visualizer loads only when asked for: it would slow every run's start.
  const { withLiveViz } = await import('rein-visualizer/server/live-viz.js');
  return withLiveViz(
    { port: vizPort, rules, log: (text) => io.stderr.write(text), keepServing: keepsServing(Boolean(parsed.values['viz-exit']), env) },
    execute,
  );
}

/**
 * A temp copy of the demo repo. It goes when the run has ended (at once, so a
 * visualizer serving on does not hold it) or, failing that, when the process
 * exits; a run that can be resumed (interrupted, or waiting for an approval)
 * keeps it, since `rein resume` continues in it.
 */
function demoWorkspace(): { path: string; runEnded(code: number): boolean } {
  const path = mkdtempSync(join(tmpdir(), 'rein-demo-'));
  cpSync(demoRepoPath(), path, { recursive: true });
  let keep = false;
  const remove = () => {
    if (!keep) rmSync(path, { recursive: true, force: true });
  };
  process.once('exit', remove);
  // rein handles SIGINT and SIGTERM itself (the run is interrupted); a hang-up nobody handles ends the process without 'exit'.
  process.once('SIGHUP', () => {
    if (process.listenerCount('SIGHUP') > 0) return;
    remove();
    process.kill(process.pid, 'SIGHUP');
  });
  return {
    path,
    runEnded: (code) => {
      keep = RESUMABLE.has(code);
      remove();
      return keep;
    },
  };
}

const RESUMABLE = new Set<number>([EXIT.interrupted, EXIT.terminated, EXIT.awaitingApproval]);

/** Kept demo runs: the newest ones, in rein's own state folder (outside the temp copy, so the trace outlives it). */
const KEPT_DEMO_RUNS = 10;

/** A new run folder for the demo under `<state>/demo-runs/`, the oldest beyond the newest ten removed. */
function demoRunDir(env: NodeJS.ProcessEnv): string {
  const root = join(userStateDir(env), 'demo-runs');
  mkdirSync(root, { recursive: true });
  const kept = readdirSync(root).sort().reverse();
  for (const old of kept.slice(KEPT_DEMO_RUNS - 1)) rmSync(join(root, old), { recursive: true, force: true });
  return join(root, newRunId());
}

function pacedDemoModel(): ModelSource {
  return { ...scriptedModelSource('demo-scripted', demoScript), createActor: () => createScriptedModel(demoScript, { delayMs: VIZ_PACE_MS }).actor };
}
