import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { ensureStateDir } from '../lib/state-dir.js';
import { createActor, toPromise, type AnyActorLogic, type InspectionEvent } from 'xstate';
import { createContextManagerActor } from '../actors/context-manager-actor.js';
import { createSummarizer, type SummarizeText } from '../actors/summarizer.js';
import { createToolRunner } from '../actors/tool-runner.js';
import { ViewBuilder } from '../context/view-builder.js';
import { createHarnessMachine, type HarnessMachine } from '../machines/harness-machine.js';
import type { GuardRegistry } from '../machines/guards.js';
import type { RuleActionRegistry } from '../machines/rule-actions.js';
import { isCheckpoint, stateLabel } from '../machines/state-label.js';
import type { HarnessContext, HarnessInput, HarnessOutput } from '../machines/types.js';
import type { Rules } from '../rules/schema.js';
import { RunInterrupted, UsageError } from '../lib/errors.js';
import { toolSchemas, toolSchemasJson } from '../tools/index.js';
import { selectTools } from './tool-selection.js';
import type { AnyTool, ToolContext } from '../tools/types.js';
import { readProgress } from '../tools/update-todo.js';
import { createRunSandbox } from '../tools/run-sandbox.js';
import { describeLostJobs, jobTraceLine } from '../tools/job-lines.js';
import { openCallJournal } from './call-journal.js';
import { createInspectionTracer, traceTool } from './inspection-trace.js';
import { loadState, saveState, type SavedState } from './state-file.js';
import { nextTraceIndex, openTracer, TRACE_VERSION, type Tracer } from './trace.js';
import { Transcript } from './transcript.js';
import { STATE_DIR_NAME } from '../lib/harness-files.js';

/** Where the model comes from: built once the run's tool schemas are known. */
export interface ModelSource {
  name: string;
  /** One line for the start message and the trace, e.g. `openai-compatible at http://…`. */
  description: string;
  /** The endpoint, kept in run.json so `rein resume` finds it again without the environment. */
  baseURL?: string;
  /** `note` writes a line to the run's trace (retries, for example). */
  createActor(toolSchemas: unknown[], hooks: { note(kind: string, data: Record<string, unknown>): void }): AnyActorLogic;
  summarize: SummarizeText;
}

export interface RunOptions {
  workspace: string;
  task: string;
  testCmd: string;
  rules: Rules;
  model: ModelSource;
  runDir: string;
  tracePath?: string;
  guards?: GuardRegistry;
  /** Rule actions registered from a rules module (phase `onEnter`, exit `actions`). */
  actions?: RuleActionRegistry;
  /** The tool registry to pick `rules.tools.enabled` from; defaults to rein's six tools. */
  tools?: readonly AnyTool[];
  /** Values that must never appear in the trace (API keys). */
  secrets?: string[];
  /** The rules file the run was started with, kept in run.json so `rein resume` can reload its guards and tools. */
  configPath?: string;
  /** XState clock (a `SimulatedClock` in tests). */
  clock?: { setTimeout(fn: (...args: unknown[]) => void, ms: number): unknown; clearTimeout(id: unknown): void };
  /** Every trace line, as it is written (status line, visualizer). */
  onTrace?: (kind: string, data: Record<string, unknown>) => void;
  /** Every XState inspection event (visualizer). */
  inspect?: (event: InspectionEvent) => void;
  /** fsync the saved state after every step (default true; about 10 ms a step on a busy disk). */
  fsync?: boolean;
  /** Save the state for `rein resume` after every step (default true; benchmarks measure with and without). */
  saveState?: boolean;
}

export interface RunHandle {
  /** Stops the run where it is (in-flight calls are aborted); `done` then rejects with `RunInterrupted`. */
  interrupt(): void;
  runDir: string;
  tracePath: string;
  /** One line: how commands run and what they can see (the start line prints it). */
  sandbox: string;
  /** `none`: commands run unsandboxed and can read the whole disk. */
  sandboxMode: 'bwrap' | 'none' | 'unavailable';
  machine: HarnessMachine;
  actor: ReturnType<typeof createActor<HarnessMachine>>;
  done: Promise<HarnessOutput>;
}

interface Resume {
  saved: SavedState;
}

/**
 * Starts a harness run: wires the record, the trace, the tools and the
 * model into the machine's actors, saves the state after every step, and
 * returns the running actor. The machine decides everything else.
 *
 * @example const run = startRun({ workspace, task, testCmd: 'npm test', rules, model, runDir }); const output = await run.done;
 */
export function startRun(options: RunOptions): RunHandle {
  return launch(options, null);
}

/**
 * Continues a run killed at any point, from its run directory: the saved
 * machine state, the record up to it and the journal of executed tool calls.
 * A run killed before its first step was saved starts over in the same
 * directory; the trace keeps what was written and continues after it.
 */
export function resumeRun(options: RunOptions): RunHandle {
  const statePath = join(options.runDir, 'state.json');
  if (!existsSync(statePath)) {
    rmSync(join(options.runDir, 'record.jsonl'), { force: true });
    return launch(options, null);
  }
  const saved = loadState(statePath);
  const status = (saved.snapshot as { status?: string }).status;
  if (status !== 'active') throw new UsageError(`${options.runDir}: this run already ended (${(saved.snapshot as { context?: { status?: string } }).context?.status ?? status}); nothing to resume`);
  return launch(options, { saved });
}

function launch(options: RunOptions, resume: Resume | null): RunHandle {
  const workspace = realWorkspace(options.workspace);
  const { rules } = options;
  const policy = {
    deny: rules.permissions.deny, sandbox: rules.permissions.sandbox, network: rules.permissions.network, envAllow: rules.permissions.envAllow,
    readable: rules.permissions.readable, hidden: rules.permissions.hidden, timeoutSeconds: rules.tools.commandTimeoutSeconds,
  };
  // One sandbox for the whole run (issue 16): commands and background jobs; its job lines go to the trace. Made first:
  // rules it cannot honour (a credential path in permissions.readable) stop the run before anything is written.
  const sandbox = createRunSandbox({
    root: workspace, policy, testCmd: options.testCmd, protectedFiles: options.configPath ? [options.configPath] : [], stateDir: options.runDir,
    onJob: (job) => trace.log('job', jobTraceLine(job)),
  });
  if (resolve(options.runDir).startsWith(join(workspace, STATE_DIR_NAME) + sep)) ensureStateDir(workspace);
  mkdirSync(options.runDir, { recursive: true });
  const tracePath = options.tracePath ?? join(options.runDir, 'trace.jsonl');
  const listeners = options.onTrace;
  // Lines written after the last save stay (they show what the killed process did); numbering continues after them.
  let traceIndex = nextTraceIndex(tracePath);
  const baseTracer = openTracer(tracePath, options.secrets ?? [], { firstIndex: traceIndex });
  const trace: Tracer = {
    path: tracePath,
    log(kind, data = {}) { traceIndex++; baseTracer.log(kind, data); listeners?.(kind, data); },
    flush() { baseTracer.flush(); },
    close() { baseTracer.close(); },
  };
  const transcript = resume ? Transcript.resume(join(options.runDir, 'record.jsonl'), resume.saved.recordLength) : new Transcript(join(options.runDir, 'record.jsonl'));
  const journal = openCallJournal(join(options.runDir, 'calls.jsonl'));
  const tools = selectTools(options.tools, rules.tools.enabled);
  const schemas = toolSchemas(tools);
  const toolContext: Omit<ToolContext, 'signal'> = {
    root: workspace,
    limits: { outputChars: rules.tools.outputChars, viewLines: rules.tools.viewLines, maxHits: rules.tools.maxHits },
    policy,
    // The rules file this run was started with, wherever it lives: the agent must not rewrite what the next run imports.
    protectedFiles: options.configPath ? [options.configPath] : [],
    sandbox,
  };
  const builder = new ViewBuilder();
  const record = () => transcript.messages;
  const machine = harnessMachineFor(rules, options).provide({
    actors: {
      model: options.model.createActor(schemas, { note: (kind, data) => trace.log(kind, data) }) as never,
      // A call's trace line is written with its journal entry: a resumed run reuses the result without tracing it again.
      tools: createToolRunner({
        tools, toolContext, journal, secrets: options.secrets ?? [], onResult: (result, step) => { traceTool(trace, result, step); trace.flush(); },
        onSecretsMasked: (findings, call, step) => trace.log('secrets_masked', { step, id: call.id, name: call.name, findings }),
      }),
      contextManager: createContextManagerActor({ record, builder, rules: rules.context }),
      summarizer: createSummarizer({ record, builder, prompt: rules.messages.summaryPrompt, summarize: options.model.summarize, windowTokens: rules.context.windowTokens }),
    },
  });
  const input: HarnessInput = {
    task: options.task, testCmd: options.testCmd, model: options.model.name,
    todo: readProgress(workspace) ?? [], overheadTokens: Math.ceil(toolSchemasJson(tools).length / rules.context.charsPerToken) + 8,
  };
  const startedAt = Date.now();
  const elapsedBefore = resume?.saved.elapsedMs ?? 0;
  const elapsed = () => elapsedBefore + (Date.now() - startedAt);
  const tracer = createInspectionTracer(trace, () => actorRef.getSnapshot().context.step, options.inspect);
  // Background jobs of the process this run continues died with it: the trace and the agent are told.
  const lostJobs = sandbox.takeLostJobs();
  const restored = resume ? restoreSnapshot(resume.saved, describeLostJobs(lostJobs)) : undefined;
  const actorRef = createActor(machine, { input, inspect: tracer.inspect, ...(restored ? { snapshot: restored as never } : {}), ...(options.clock ? { clock: options.clock } : {}) });
  tracer.attach(actorRef, restored ? stateLabel((restored as { value: never }).value) : '');
  actorRef.on('record.append', (event) => transcript.append(event.messages));
  actorRef.on('harness.note', (event) => trace.log(event.kind, event.data));

  const save = () => {
    // With fsync on, the record and the journal reach the disk before a state that points past their ends could.
    if (options.fsync !== false) { transcript.sync(); journal.sync(); }
    const persisted = actorRef.getPersistedSnapshot() as unknown as { context: HarnessContext };
    saveState(join(options.runDir, 'state.json'), {
      version: 1, savedAt: new Date().toISOString(), elapsedMs: elapsed(), recordLength: persisted.context.recordLength, traceIndex, snapshot: persisted,
    }, { fsync: options.fsync !== false });
  };
  actorRef.subscribe({
    // The end of each machine step: write what it logged, and save the state at checkpoints.
    next: (snapshot) => {
      trace.flush();
      transcript.flush();
      if (options.saveState === false) return;
      if (isCheckpoint(stateLabel(snapshot.value)) || snapshot.status === 'done') save();
    },
    error: () => undefined,
  });

  if (!resume && traceIndex > 0) {
    trace.log('resume', { fromState: 'start', recordLength: 0, elapsedMs: 0, note: 'killed before the first step was saved; starting over' });
  } else if (!resume) {
    writeFileSync(join(options.runDir, 'run.json'), JSON.stringify({
      version: 1, workspace, task: options.task, testCmd: options.testCmd, model: options.model.name, createdAt: new Date().toISOString(), rules,
      // Never with credentials in it: a URL with a user, a password or a query has to be given again on resume.
      ...(options.model.baseURL && !/^[a-z]+:\/\/[^/]*@|[?#]/i.test(options.model.baseURL) ? { baseURL: options.model.baseURL } : {}),
      ...(options.configPath ? { configPath: options.configPath } : {}),
      // A trace kept outside the run directory (`--trace`) is where a resumed run goes on writing.
      ...(options.tracePath ? { tracePath } : {}),
    }, null, 2));
    trace.log('start', { version: TRACE_VERSION, task: options.task, testCmd: options.testCmd, model: options.model.name, endpoint: options.model.description, workspace, runDir: options.runDir, sandbox: sandbox.description, visibility: sandbox.visibility, tools: tools.map((tool) => tool.name), rules });
  }
  if (resume) trace.log('resume', { fromState: tracer.label(), recordLength: resume.saved.recordLength, elapsedMs: resume.saved.elapsedMs });
  for (const job of lostJobs) trace.log('job', jobTraceLine(job));
  let interrupted = false;
  const done = (async () => {
    try {
      actorRef.start();
      if (resume) actorRef.send({ type: 'clock.restart' });
      const output = await toPromise(actorRef);
      if (interrupted) throw new RunInterrupted(`interrupted in ${tracer.label()}; continue with: npx rein resume ${options.runDir}`);
      return output;
    } catch (error) {
      if (error instanceof RunInterrupted) {
        trace.log('interrupted', { state: tracer.label() });
        throw error;
      }
      trace.log('crash', { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
      throw error;
    } finally {
      // Jobs end with the run; their last lines go into the trace before it closes.
      await sandbox.dispose();
      trace.close();
      transcript.close();
      journal.close();
    }
  })();
  const interrupt = () => { interrupted = true; actorRef.stop(); };
  return { runDir: options.runDir, tracePath, sandbox: sandbox.description, sandboxMode: sandbox.mode.kind, machine, actor: actorRef, done, interrupt };
}

function realWorkspace(path: string): string {
  if (!existsSync(path)) throw new UsageError(`workspace not found: ${path}`);
  return realpathSync(path);
}

/** The saved snapshot with the elapsed time written into the context, so the clock re-arms with what is left; `notices` are queued for the model. */
function restoreSnapshot(saved: SavedState, notices: string[] = []): unknown {
  const snapshot = saved.snapshot as { context: HarnessContext };
  return { ...snapshot, context: { ...snapshot.context, elapsedMs: saved.elapsedMs, notices: [...snapshot.context.notices, ...notices] } };
}

/** Reads a run directory's metadata (task, workspace, rules) for `rein resume`. */
export function readRunMeta(runDir: string): { workspace: string; task: string; testCmd: string; model: string; rules: unknown; configPath?: string; tracePath?: string; baseURL?: string } {
  const path = join(runDir, 'run.json');
  if (!existsSync(path)) throw new UsageError(`${runDir} is not a rein run directory (no run.json)`);
  return JSON.parse(readFileSync(path, 'utf8'));
}

/**
 * The statechart for these rules and registries, built once per process: a
 * machine is immutable, and reusing it keeps V8's feedback for its guards
 * and actions warm from one run to the next (an eval worker, the benchmark).
 */
const machines = new Map<string, { guards: RunOptions['guards']; actions: RunOptions['actions']; machine: ReturnType<typeof createHarnessMachine> }>();
const MAX_CACHED_MACHINES = 16;

function harnessMachineFor(rules: Rules, options: Pick<RunOptions, 'guards' | 'actions'>) {
  const key = JSON.stringify(rules);
  const cached = machines.get(key);
  if (cached && cached.guards === options.guards && cached.actions === options.actions) return cached.machine;
  const machine = createHarnessMachine(rules, { guards: options.guards, actions: options.actions });
  if (machines.size >= MAX_CACHED_MACHINES) machines.delete(machines.keys().next().value!);
  machines.set(key, { guards: options.guards, actions: options.actions, machine });
  return machine;
}
