import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scriptedModelSource } from 'rein/actors/model-source.js';
import { createScriptedModel } from 'rein/actors/scripted-model.js';
import { loadRules } from 'rein/config/load-rules.js';
import { DEMO_TASK, DEMO_TEST_CMD, demoScript } from 'rein/demo/demo-model.js';
import { STATE_DIR_NAME } from 'rein/lib/harness-files.js';
import { packageRoot } from 'rein/lib/package-root.js';
import { presetNames } from 'rein/rules/presets.js';
import type { ModelSource } from 'rein/run/start-run.js';
import type { RunObservers } from 'rein-viz/visualizer/server/live-viz.js';
import { keepsServing, parsePort } from 'rein-viz/visualizer/server/viz-flags.js';
import { type FlagSpec, parseCommand, stringFlag } from '../args.js';
import { executeRun, type Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';
import { OTEL_FLAGS, OTEL_USAGE, otelSettings } from '../otel-flags.js';

/** With a visualizer watching, the scripted model pauses before each reply: an instant run leaves nothing to watch. */
const VIZ_PACE_MS = 450;

export const DEMO_USAGE = `rein demo [--preset NAME] [--config FILE] [--viz] [--viz-port N] [--viz-exit] [--json] [--run-dir DIR] [--otel URL]

Copies a small buggy repo to a temp dir and runs the full harness on it with a
built-in scripted model: plan, build, a refused finish, verify, fix, finish.
Offline, no API key.

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
export function demoRepoPath(): string {
  return join(packageRoot(), 'demo', 'repo');
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
  const workspace = mkdtempSync(join(tmpdir(), 'rein-demo-'));
  cpSync(demoRepoPath(), workspace, { recursive: true });
  io.stderr.write(`rein demo: copied the demo repo to ${workspace}\n`);
  const execute = (observers: RunObservers) =>
    executeRun({
      io,
      json: Boolean(parsed.values.json),
      otel,
      run: {
        workspace,
        task: DEMO_TASK,
        testCmd: DEMO_TEST_CMD,
        rules,
        model: viz ? pacedDemoModel() : scriptedModelSource('demo-scripted', demoScript),
        runDir: stringFlag(parsed, 'run-dir') ?? join(workspace, STATE_DIR_NAME, 'runs', 'demo'),
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
  if (!viz) return execute({});
  // The visualizer loads only when asked for: it would slow every run's start.
  const { withLiveViz } = await import('rein-viz/visualizer/server/live-viz.js');
  return withLiveViz(
    { port: vizPort, rules, log: (text) => io.stderr.write(text), keepServing: keepsServing(Boolean(parsed.values['viz-exit']), env) },
    execute,
  );
}

function pacedDemoModel(): ModelSource {
  return { ...scriptedModelSource('demo-scripted', demoScript), createActor: () => createScriptedModel(demoScript, { delayMs: VIZ_PACE_MS }).actor };
}
