import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { scriptedIntake } from '../actors/model/model-source.js';
import { createScriptedModel, type Script, type ScriptedModel } from '../actors/model/scripted-model.js';
import { extractiveSummary, type SummarizeText } from '../actors/summarizer.js';
import type { ChatMessage } from '../context/messages.js';
import type { TraceRecord } from '../lib/trace/trace-events.js';
import type { GuardRegistry } from '../machines/guards/registry.js';
import type { RuleActionRegistry } from '../machines/rule-actions.js';
import type { HarnessOutput } from '../machines/types.js';
import { type Rules, type RulesInput, rulesSchema } from '../rules/schema.js';
import { readJsonLines } from '../run/record/jsonl.js';
import { readRecord } from '../run/record/transcript.js';
import { type RunOptions, startRun } from '../run/start-run.js';
import type { AnyTool } from '../tools/types.js';
import { makeTempDir } from './temp-dir.js';

export interface ScriptedRunOptions {
  script: Script;
  /** Files of the starting workspace (path → content); a temp dir is made for them. */
  files?: Record<string, string>;
  /** Or an existing workspace directory. */
  workspace?: string;
  /** The workspace snapshots' store; by default one of the run's own (never the user state dir's). */
  snapshotStore?: string;
  task?: string;
  testCmd?: string;
  rules?: RulesInput | Rules;
  guards?: GuardRegistry;
  actions?: RuleActionRegistry;
  /** Tools of yours, offered beside rein's own (a name of rein's replaces that tool only with `replaceTools: 'same-name'`). */
  tools?: readonly AnyTool[];
  /** `only`: the run has just `tools`, none of rein's; `same-name`: yours replace rein's tools of the same name. */
  replaceTools?: 'only' | 'same-name';
  summarize?: SummarizeText;
  clock?: RunOptions['clock'];
  /** fsync the saved state every step (off by default in tests: a killed process loses nothing without it). */
  fsync?: boolean;
  /** Connected MCP servers (`openMcpHub`); the run closes them when it ends. */
  mcp?: RunOptions['mcp'];
  /** The run directory (default: a new temp dir); a hub's stderr logs go where it was opened. */
  runDir?: string;
  /** A script for each agent the rules declare, by name: every child of that agent takes its next replies from it. */
  agentScripts?: Record<string, Script>;
}

export interface ScriptedRunResult {
  output: HarnessOutput;
  /** The full record, as written to record.jsonl. */
  record: ChatMessage[];
  trace: TraceRecord[];
  /** Trace lines of one kind. */
  lines(kind: string): TraceRecord[];
  model: ScriptedModel;
  /** Each agent's scripted model, by name (`agentScripts`). */
  agentModels: Record<string, ScriptedModel>;
  /** The tool definitions the model was given, as it holds them (find_tools appends to the same array). */
  toolSchemas: unknown[];
  workspace: string;
  runDir: string;
}

/**
 * Runs the whole harness with a scripted model and rein's real tools on a
 * temp workspace: no network, no API key. The test kit's layer for runs.
 *
 * @example
 * const run = await runScripted({ files: { 'a.js': 'x' }, testCmd: 'node --test', script: [reply(call('finish', { summary: 's' }))] });
 * expect(run.output.status).toBe('step_limit');
 */
export async function runScripted(options: ScriptedRunOptions): Promise<ScriptedRunResult> {
  // Temp directories go when removeTempDirs() runs (after each test) or, at the latest, when the process exits.
  const workspace = options.workspace ?? makeTempDir('rein-test-ws-');
  for (const [path, content] of Object.entries(options.files ?? {})) {
    mkdirSync(dirname(join(workspace, path)), { recursive: true });
    writeFileSync(join(workspace, path), content);
  }
  const runDir = options.runDir ?? makeTempDir('rein-test-run-');
  let toolSchemas: unknown[] = [];
  const rules = rulesSchema.parse(options.rules ?? {});
  // The intake needs the run's tool schemas, known when the run builds the model actor.
  let intake: ReturnType<typeof scriptedIntake> | null = null;
  const model = createScriptedModel(options.script, { intake: (reply, step, messages) => (intake ? intake(reply, step, messages) : reply) });
  const agentModels = Object.fromEntries(Object.entries(options.agentScripts ?? {}).map(([name, script]) => [name, scriptedSource(name, script)]));
  const handle = await startRun({
    workspace,
    task: options.task ?? 'Make the tests pass.',
    testCmd: options.testCmd ?? 'npm test',
    rules,
    runDir,
    model: {
      name: 'scripted',
      description: 'scripted test model',
      createActor: (schemas, hooks) => {
        toolSchemas = schemas;
        intake = scriptedIntake(schemas, hooks);
        return model.actor;
      },
      summarize: options.summarize ?? extractiveSummary,
    },
    ...(options.guards ? { guards: options.guards } : {}),
    ...(options.actions ? { actions: options.actions } : {}),
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.replaceTools ? { replaceTools: options.replaceTools } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.mcp ? { mcp: options.mcp } : {}),
    fsync: options.fsync ?? false,
    agentModels: Object.fromEntries(Object.entries(agentModels).map(([name, entry]) => [name, entry.source])),
    // Each test run keeps its workspace snapshots in a store of its own, not in the user state dir.
    snapshotStore: options.snapshotStore ?? makeTempDir('rein-test-store-', { until: 'exit' }),
  });
  const output = await handle.done;
  const trace = readJsonLines<TraceRecord>(handle.tracePath).values;
  return {
    output,
    trace,
    model,
    agentModels: Object.fromEntries(Object.entries(agentModels).map(([name, entry]) => [name, entry.model])),
    toolSchemas,
    workspace,
    runDir,
    record: readRecord(join(runDir, 'record.jsonl')),
    lines: (kind) => trace.filter((line) => line.kind === kind),
  };
}

/** A scripted model for an agent: its children share the script, each taking the next replies. */
function scriptedSource(name: string, script: Script): { source: RunOptions['model']; model: ScriptedModel } {
  let intake: ReturnType<typeof scriptedIntake> | null = null;
  const model = createScriptedModel(script, { intake: (reply, step, messages) => (intake ? intake(reply, step, messages) : reply) });
  return {
    model,
    source: {
      name: `scripted-${name}`,
      description: `scripted test model of agent ${name}`,
      createActor: (schemas, hooks) => {
        intake = scriptedIntake(schemas, hooks);
        return model.actor;
      },
      summarize: extractiveSummary,
    },
  };
}
