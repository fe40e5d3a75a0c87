import { resolve } from 'node:path';
import { openAIModelSource, resolveEndpoint, scriptedModelSource } from 'rein/actors';
import { UsageError } from 'rein/lib';
import { rulesSchema } from 'rein/rules';
import { liveRunWriter, loadRules, readOwnRunMeta, traceFileOf } from 'rein/run';
import type { RunObservers } from 'rein-visualizer/server/live-viz.js';
import { keepsServing, parsePort } from 'rein-visualizer/server/viz-flags.js';
import { type FlagSpec, parseCommand, stringFlag } from '../args.js';
import { demoScript } from '../demo/demo-model.js';
import { executeRun, type Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';
import { HEADLESS_FLAGS, HEADLESS_USAGE, headlessOptions } from '../headless.js';
import { OTEL_FLAGS, OTEL_USAGE, otelSettings } from '../otel-flags.js';

const RESUME_USAGE = `rein resume <run-dir> [--model NAME] [--base-url URL] [--viz] [--viz-port N] [--viz-exit] [--json] [--otel URL]

Continues a run that was killed or interrupted, from its last saved step:
the record, the todo list and the machine state are reloaded, tool calls
already executed are not run again, and the trace continues. A run that
waited for an approval waits again on the same call, for what was left of
its timeout. A state saved by an older rein (format 2 on) is migrated.

  --viz          watch it in the live visualizer, the steps before the kill included
  --viz-port N   the visualizer's port (default: any free port)
  --viz-exit     stop the visualizer when the run ends (default: serve until Ctrl+C)
  --fsync        fsync the record, journal and state every step (resumable after a power loss too)
${HEADLESS_USAGE}
${OTEL_USAGE}`;

const RESUME_FLAGS: FlagSpec = {
  model: { type: 'string' },
  'base-url': { type: 'string' },
  json: { type: 'boolean' },
  fsync: { type: 'boolean' },
  viz: { type: 'boolean' },
  'viz-port': { type: 'string' },
  'viz-exit': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  ...OTEL_FLAGS,
  ...HEADLESS_FLAGS,
};

export async function resumeCommand(argv: string[], io: Io, env: NodeJS.ProcessEnv): Promise<number> {
  const parsed = parseCommand('rein resume', argv, RESUME_FLAGS);
  if (parsed.values.help) {
    io.stdout.write(RESUME_USAGE + '\n');
    return EXIT.done;
  }
  const [dir] = parsed.positionals;
  if (!dir) throw new UsageError(`rein resume: expected <run-dir>\n\n${RESUME_USAGE}`);
  const runDir = resolve(dir);
  const meta = readOwnRunMeta(runDir);
  // Two processes on one run directory would run its calls twice and interleave its record and trace.
  const live = liveRunWriter(runDir);
  if (live)
    throw new UsageError(
      `rein resume: ${runDir} is still running (pid ${live.pid}); stop it first (Ctrl+C where it runs, or kill ${live.pid}), then resume it`,
    );
  const rules = rulesSchema.parse(meta.rules);
  // Guards and tools registered in code come back from the rules file the run started with.
  // The file must be as it was when the run started (imports included): the agent may have rewritten a module since.
  const extensions = meta.configPath
    ? await loadRules({ configPath: meta.configPath, workspace: meta.workspace, startedWith: meta.configFingerprint ?? { hash: '', modules: {} } })
    : { guards: {}, tools: [], actions: {}, hookFunctions: {} };
  const model =
    meta.model === 'demo-scripted'
      ? scriptedModelSource('demo-scripted', demoScript)
      : // The endpoint the run started with, unless a flag or the environment names another.
        openAIModelSource(
          resolveEndpoint({
            model: stringFlag(parsed, 'model') ?? meta.model,
            baseURL: stringFlag(parsed, 'base-url') || env.OPENAI_BASE_URL || meta.baseURL,
            env,
          }),
          rules,
        );
  const vizPort = parsePort('rein resume', '--viz-port', stringFlag(parsed, 'viz-port'));
  const otel = await otelSettings('rein resume', parsed, env, (text) => io.stderr.write(text));
  const secrets = [env.OPENAI_API_KEY].filter((value): value is string => Boolean(value));
  const tracePath = traceFileOf(runDir, meta);
  const execute = (observers: RunObservers) =>
    executeRun({
      io,
      env,
      json: Boolean(parsed.values.json),
      resume: true,
      headless: headlessOptions(parsed),
      otel,
      run: {
        workspace: meta.workspace,
        task: meta.task,
        testCmd: meta.testCmd,
        rules,
        model,
        runDir,
        tracePath,
        guards: extensions.guards,
        actions: extensions.actions,
        hookFunctions: extensions.hookFunctions,
        tools: extensions.tools,
        ...(meta.configPath ? { configPath: meta.configPath } : {}),
        ...(meta.configFingerprint ? { configFingerprint: meta.configFingerprint } : {}),
        secrets,
        ...(parsed.values.fsync ? { fsync: true } : {}),
        onTrace: observers.onTrace,
        inspect: observers.inspect,
        ...(observers.answerSources ? { answerSources: observers.answerSources } : {}),
      },
      onStart: observers.onStart,
    });
  if (!parsed.values.viz) return execute({});
  const [{ withLiveViz }, { loadTrace }, { nextTraceIndex }] = await Promise.all([
    import('rein-visualizer/server/live-viz.js'),
    import('rein-visualizer/server/trace-file.js'),
    import('rein/run'),
  ]);
  // The page opens on the run so far; the resumed steps stream after it.
  const before = loadTrace(tracePath);
  const history = { lines: before.lines, notes: before.notes, nextIndex: nextTraceIndex(tracePath) };
  return withLiveViz(
    { port: vizPort, rules, secrets, history, log: (text) => io.stderr.write(text), keepServing: keepsServing(Boolean(parsed.values['viz-exit']), env) },
    execute,
  );
}
