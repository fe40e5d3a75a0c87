import { existsSync, mkdirSync, realpathSync, rmSync } from 'node:fs';
import { createActor, type InspectionEvent, toPromise } from 'xstate';
import { type AnswerSource, createApprover } from '../actors/approvals/approver.js';
import { createContextManagerActor } from '../actors/context-manager-actor.js';
import { planHookLaunch } from '../actors/hooks/hook-launch.js';
import { createHooksActor, type HooksDeps } from '../actors/hooks/hooks-actor.js';
import type { HookOutcome } from '../actors/hooks/run-hook.js';
import type { McpHub } from '../actors/mcp/hub.js';
import type { ModelSource } from '../actors/model/model-source.js';
import { createSummarizer } from '../actors/summarizer.js';
import { createToolRunner } from '../actors/tool-runner.js';
import { ViewBuilder } from '../context/view-builder.js';
import { RunAwaitingApproval, RunInterrupted, UsageError } from '../lib/errors.js';
import type { TraceLine } from '../lib/trace/trace-events.js';
import { thisTraceWriter } from '../lib/trace/trace-writer.js';
import type { HarnessMachine, HarnessOptions } from '../machines/harness-machine.js';
import { isCheckpoint, stateLabel } from '../machines/introspection.js';
import type { HarnessContext, HarnessInput, HarnessOutput } from '../machines/types.js';
import { checkOf, verificationOf } from '../machines/verification.js';
import { checkHostHooks } from '../rules/hooks/host-hooks.js';
import type { Rules } from '../rules/schema.js';
import { rememberedForRepository, trustFilePath } from '../rules/trust/approvals-trust-file.js';
import { checkHooksTrusted } from '../rules/trust/hooks-trust.js';
import { beginRulesWatch, endRulesWatch } from '../rules/trust/rules-watch.js';
import type { RulesFingerprint } from '../rules/trust/trusted-rules.js';
import { createSyntaxChecker } from '../tools/edits/syntax-check.js';
import { removeLeftoverTempFiles } from '../tools/edits/temp-file-journal.js';
import { toolRegistry, toolSchemas, toolSchemasJson } from '../tools/index.js';
import { describeLostJobs, jobTraceLine } from '../tools/sandbox/jobs/job-lines.js';
import { createRunSandbox } from '../tools/sandbox/run-sandbox.js';
import { enableRegistered, selectTools } from '../tools/select-tools.js';
import type { AnyTool, CommandPolicy, ToolContext } from '../tools/types.js';
import { readProgress } from '../tools/update-todo.js';
import { harnessMachineFor } from './machine-cache.js';
import { openCallJournal } from './record/call-journal.js';
import { createInspectionTracer, traceTool } from './record/inspection-trace.js';
import { runFile, writeRunMeta } from './record/run-dir.js';
import { prepareRunPlacement } from './record/run-placement.js';
import { loadState, type SavedState, STATE_VERSION, saveState } from './record/state-file.js';
import { checkRestorable } from './record/state-migration.js';
import { nextTraceIndex, openTracer, TRACE_VERSION, type Tracer } from './record/trace.js';
import { Transcript } from './record/transcript.js';
import { readRepositoryInstructions } from './repository-instructions.js';
import { ResourceStack } from './resource-stack.js';

export type { ModelSource };

export interface RunOptions {
  workspace: string;
  task: string;
  testCmd: string;
  rules: Rules;
  model: ModelSource;
  runDir: string;
  tracePath?: string;
  /** Guards registered from a rules module. */
  guards?: HarnessOptions['guards'];
  /** Rule actions registered from a rules module (phase `onEnter`, exit `actions`). */
  actions?: HarnessOptions['actions'];
  /** Tools of yours, added to rein's seven and enabled without being listed in `tools.enabled` (offered where the phases allow them). */
  tools?: readonly AnyTool[];
  /** `only`: the run has just `tools`, none of rein's; `same-name`: yours replace rein's tools of the same name (else a clash is a usage error). */
  replaceTools?: 'only' | 'same-name';
  /** Values that must never appear in the trace (API keys). */
  secrets?: string[];
  /** Where the rules came from (`preset default`, a rules file's path, `command-line flags`), for the start line and the trace. */
  rulesSources?: readonly string[];
  /** The rules file the run was started with, kept in run.json so `rein resume` can reload its guards and tools. */
  configPath?: string;
  /** Its fingerprint when the run started (file and imported workspace modules): `rein resume` refuses a file that changed since. */
  configFingerprint?: RulesFingerprint;
  /** XState clock (a `SimulatedClock` in tests). */
  clock?: { setTimeout(fn: (...args: unknown[]) => void, ms: number): unknown; clearTimeout(id: unknown): void };
  /** Every trace line, as the file gets it (status line, visualizer). */
  onTrace?: (line: TraceLine) => void;
  /** Every trace line as the file gets it, as JSON text (the OpenTelemetry export hands it to its worker as it is). */
  onTraceLine?: (text: string) => void;
  /** Every XState inspection event (visualizer). */
  inspect?: (event: InspectionEvent) => void;
  /** fsync the saved state after every step (default true; about 10 ms a step on a busy disk). */
  fsync?: boolean;
  /** Save the state for `rein resume` after every step (default true; benchmarks measure with and without). */
  saveState?: boolean;
  /**
   * Connected MCP servers (`openMcpHub`, actors/mcp/hub.ts): their tools are added after rein's, their lifecycle goes
   * into the trace, and the run closes them when it ends.
   */
  mcp?: McpHub;
  /** Called before each step of starting the run (`LAUNCH_STEPS`); a throw there is a failed start: everything opened before it is released. Tests throw from it. */
  onLaunchStep?: (step: LaunchStep) => void;
  /** Who can answer an approval in this process (the terminal prompt, the page); none: the run is headless (approvals.headless). */
  answerSources?: readonly AnswerSource[];
  /** The approval trust file (default: rules/trust/approvals-trust-file.ts trustFilePath()). */
  trustFile?: string;
  /** How often the approver looks for an answer from `rein approve`, in ms (tests make it short). */
  approvalPollMs?: number;
  /** Hook functions a rules module exports, for `hooks.<moment>[].function` entries. */
  hookFunctions?: HooksDeps['functions'];
}

export interface RunHandle {
  /** Stops the run where it is (in-flight calls are aborted); `done` then rejects with `RunInterrupted`. */
  interrupt(): void;
  /** The workspace's real path. */
  workspace: string;
  runDir: string;
  tracePath: string;
  /** One line: how commands run and what they can see (the start line prints it). */
  sandbox: string;
  /** `none`: commands run unsandboxed and can read the whole disk. */
  sandboxMode: 'bwrap' | 'none' | 'unavailable';
  machine: HarnessMachine;
  actor: ReturnType<typeof createActor<HarnessMachine>>;
  done: Promise<HarnessOutput>;
  /**
   * Rules files at the workspace root that the run created, changed or
   * removed (known once `done` settles). They are marked untrusted: rein will
   * not load them again until a person runs `rein rules trust`.
   */
  tamperedRulesFiles(): string[];
}

/**
 * Starts a harness run: wires the record, the trace, the tools and the
 * model into the machine's actors, saves the state after every step, and
 * returns the running actor. The machine decides everything else.
 *
 * @example const run = startRun({ workspace, task, testCmd: 'npm test', rules, model, runDir }); const output = await run.done;
 */
export function startRun(options: RunOptions): RunHandle {
  return launch(withRegisteredTools(options), null);
}

/** The run's whole tool registry (rein's and yours), with yours enabled in the rules (a tool registered once is offered where the phases allow it). */
function withRegisteredTools(options: RunOptions): RunOptions {
  const { replaceTools } = options;
  const tools = toolRegistry(options.tools, { only: replaceTools === 'only', replace: replaceTools === 'same-name', source: 'startRun tools' });
  return { ...options, tools, replaceTools: 'only', rules: enableRegistered(options.rules, tools) };
}

/**
 * Continues a run killed at any point, from its run directory: the saved
 * machine state, the record up to it and the journal of executed tool calls.
 * A run killed before its first step was saved starts over in the same
 * directory; the trace keeps what was written and continues after it.
 */
export function resumeRun(options: RunOptions): RunHandle {
  const statePath = runFile(options.runDir, 'state');
  if (!existsSync(statePath)) {
    rmSync(runFile(options.runDir, 'record'), { force: true });
    return launch(withRegisteredTools(options), null);
  }
  const saved = loadState(statePath);
  const status = (saved.snapshot as { status?: string }).status;
  if (status !== 'active')
    throw new UsageError(
      `${options.runDir}: this run already ended (${(saved.snapshot as { context?: { status?: string } }).context?.status ?? status}); nothing to resume`,
    );
  return launch(withRegisteredTools(options), saved);
}

/** The steps of starting a run, in order; each owns what it opens. */
export const LAUNCH_STEPS = ['sandbox', 'files', 'actors', 'checkpoint', 'start'] as const;
export type LaunchStep = (typeof LAUNCH_STEPS)[number];

function launch(options: RunOptions, saved: SavedState | null): RunHandle {
  const held = new ResourceStack();
  const step = (name: LaunchStep) => options.onLaunchStep?.(name);
  try {
    const workspace = realWorkspace(options.workspace);
    checkHooksTrusted(options.rules.hooks, options.configPath, workspace, options.trustFile ?? trustFilePath());
    // Also checked when the rules are loaded; here for rules handed to startRun directly.
    checkHostHooks(options.rules.hooks, workspace, options.configPath);
    // Before the sandbox exists: .rein is made (and so shown read-only), and no run file is where a command could write it.
    prepareRunPlacement(workspace, { runDir: options.runDir, ...(options.tracePath ? { tracePath: options.tracePath } : {}) });
    // Half-written temporary files a killed rein left (its own, by record): gone before any command or model looks.
    removeLeftoverTempFiles();
    step('sandbox');
    const sandbox = openSandbox(options, workspace, held);
    step('files');
    const files = openRunFiles(options, saved, workspace, sandbox, held);
    step('actors');
    const late: LateBound = { save: () => undefined, park: () => undefined };
    // Auto tool calling's switch to prompted is part of the run's state: a resumed run goes on in the mode it had.
    const mode: ToolCallingState = { prompted: saved?.toolCalling === 'prompted' };
    const wired = wireActors(options, workspace, sandbox, files, held, late, mode);
    step('checkpoint');
    const run = createCheckpointedActor(options, saved, workspace, sandbox, files, wired, late, mode);
    step('start');
    writeStartLines(options, saved, workspace, sandbox, files, wired);
    return startActor(options, saved, workspace, { sandbox, files, wired, run }, held, late);
  } catch (error) {
    void held.release();
    throw error;
  }
}

/**
 * One sandbox for the whole run: commands and background jobs. Made first: rules it cannot honour (a credential
 * path in permissions.readable) stop the run before anything is written.
 */
function openSandbox(options: RunOptions, workspace: string, held: ResourceStack) {
  const policy = policyOf(options.rules);
  // Job lines go to the trace, opened in the next step; no job can start before the first tool call.
  const jobs: { trace: Tracer | null } = { trace: null };
  const sandbox = held.own(
    'the sandbox',
    createRunSandbox({
      root: workspace,
      policy,
      testCmd: options.testCmd,
      isCheck: (command) => checkOf(command, verificationOf(options.rules), options.testCmd) !== null,
      protectedFiles: options.configPath ? [options.configPath] : [],
      jobsDir: options.runDir,
      onJob: (job) => jobs.trace?.log('job', jobTraceLine(job)),
    }),
    (box) => box.dispose(),
  );
  return { sandbox, policy, jobs };
}
type OpenedSandbox = ReturnType<typeof openSandbox>;

function mcpToolBudget(rules: Rules) {
  return { windowTokens: rules.context.windowTokens, charsPerToken: rules.context.charsPerToken, share: rules.mcp.toolSearchShare };
}

/** The command policy the rules give (exported for the MCP servers, which run under the same one). */
export function policyOf(rules: Rules): CommandPolicy {
  return {
    deny: rules.permissions.deny,
    sandbox: rules.permissions.sandbox,
    network: rules.permissions.network,
    envAllow: rules.permissions.envAllow,
    readable: rules.permissions.readable,
    hidden: rules.permissions.hidden,
    limits: rules.permissions.limits,
    timeoutSeconds: rules.tools.commandTimeoutSeconds,
  };
}

/** The run directory's files: the trace (numbering on after a killed process's lines), the record and the call journal. */
function openRunFiles(options: RunOptions, saved: SavedState | null, workspace: string, opened: OpenedSandbox, held: ResourceStack) {
  mkdirSync(options.runDir, { recursive: true });
  const tracePath = options.tracePath ?? runFile(options.runDir, 'trace');
  // Lines written after the last save stay (they show what the killed process did); numbering continues after them.
  const firstIndex = nextTraceIndex(tracePath);
  const position = { traceIndex: firstIndex };
  const onLine = (line: TraceLine, text: string) => {
    position.traceIndex = line.i + 1;
    options.onTrace?.(line);
    options.onTraceLine?.(text);
  };
  const trace = held.own('the trace', openTracer(tracePath, options.secrets ?? [], { firstIndex, onLine }), (tracer) => tracer.close());
  opened.jobs.trace = trace;
  // Jobs end with the run; their last lines go into the trace before it closes (dispose runs once: the sandbox's own release then does nothing).
  held.own('the background jobs', opened.sandbox, (box) => box.dispose());
  const recordPath = runFile(options.runDir, 'record');
  const transcript = held.own('the record', saved ? Transcript.resume(recordPath, saved.recordLength) : new Transcript(recordPath), (record) => record.close());
  // Opened after the trace so it is closed before it: the servers' closing lines reach the file.
  if (options.mcp) {
    options.mcp.attach(({ kind, ...note }) => trace.log(kind, note as never));
    held.own('the MCP servers', options.mcp, (hub) => hub.close());
  }
  const journal = held.own('the call journal', openCallJournal(runFile(options.runDir, 'journal')), (calls) => calls.close());
  // Read once, for a new run: a resumed run's record already holds them.
  const { repositoryInstructions: wanted } = options.rules;
  const instructions = !saved && wanted.enabled ? readRepositoryInstructions(workspace, wanted) : null;
  return { trace, tracePath, firstIndex, position, transcript, journal, instructions };
}
type RunFiles = ReturnType<typeof openRunFiles>;

/**
 * How hooks run for this run: each command in a sandbox of its own under the run's policy (or on the host for
 * `where: host`), in the workspace, with a filtered environment (never the API key), each traced.
 */
function hooksDepsFor(options: RunOptions, workspace: string, policy: CommandPolicy, trace: Tracer): HooksDeps {
  const context = {
    root: workspace,
    policy,
    env: process.env,
    hookEnv: { REIN_WORKSPACE: workspace, REIN_RUN_DIR: options.runDir },
    protectedFiles: options.configPath ? [options.configPath] : [],
  };
  return {
    hooks: options.rules.hooks,
    launch: (command, spec) => planHookLaunch(command, spec.where, context),
    secrets: (options.secrets ?? []).filter((secret) => secret.length >= 6),
    ...(options.hookFunctions ? { functions: options.hookFunctions } : {}),
    onOutcome: (outcome: HookOutcome, step: number) => {
      const { moment, command, where, hostBecause, exitCode, ms, decision, message, problem, stdout, stderr } = outcome;
      trace.log('hook', {
        step,
        moment,
        command,
        where,
        ...(hostBecause ? { hostBecause } : {}),
        exitCode,
        ms,
        ...(decision ? { decision } : {}),
        ...(message ? { message } : {}),
        ...(problem ? { problem } : {}),
        ...(stdout ? { stdout } : {}),
        ...(stderr ? { stderr } : {}),
      });
      trace.flush();
    },
  };
}

/** Whether the model actor has switched to prompted tool calling (saved with the state). */
interface ToolCallingState {
  prompted: boolean;
}

/** What the approver calls that exists only once the actor does: saving the state, and stopping a headless run that must wait. */
interface LateBound {
  save(): void;
  park(): void;
}

/** The machine with its actors: the model, the tool runner (journaled, traced, secrets masked), the context manager, the summarizer and the approver. */
function wireActors(
  options: RunOptions,
  workspace: string,
  opened: OpenedSandbox,
  files: RunFiles,
  held: ResourceStack,
  late: LateBound,
  mode: ToolCallingState,
) {
  const { rules } = options;
  const { trace, transcript, journal } = files;
  const tools = selectTools(options.tools, rules.tools.enabled);
  if (options.mcp)
    tools.push(
      ...options.mcp.tools(
        tools.map((tool) => tool.name),
        mcpToolBudget(rules),
      ),
    );
  const schemas = toolSchemas(tools);
  // find_tools appends definitions at the end of the list: the prefix the provider has cached stays as it was.
  options.mcp?.onAppend((added) => {
    tools.push(...added);
    schemas.push(...toolSchemas(added));
  });
  const toolContext: Omit<ToolContext, 'signal'> = {
    root: workspace,
    limits: { outputChars: rules.tools.outputChars, viewLines: rules.tools.viewLines, maxHits: rules.tools.maxHits },
    policy: opened.policy,
    // The rules file this run was started with, wherever it lives: the agent must not rewrite what the next run imports.
    protectedFiles: options.configPath ? [options.configPath] : [],
    // One warm python3 for the run's syntax checks.
    syntax: held.own('the syntax checker', createSyntaxChecker(), (checker) => checker.close()),
    sandbox: opened.sandbox,
  };
  const builder = new ViewBuilder();
  const record = () => transcript;
  const hooks = hooksDepsFor(options, workspace, opened.policy, trace);
  const machine = harnessMachineFor(rules, {
    guards: options.guards,
    actions: options.actions,
    ...(options.configPath ? { source: options.configPath } : {}),
  }).provide({
    actors: {
      // The model source's actor logic is typed by the source; the machine's slot wants its own placeholder's type.
      model: options.model.createActor(schemas, {
        note: ({ kind, ...data }) => {
          if (kind === 'tool_calling') mode.prompted = true;
          trace.log(kind, data as never);
        },
        toolCalling: mode.prompted ? 'prompted' : rules.model.toolCalling,
        recoverToolCalls: rules.model.recoverToolCalls,
        repairArguments: rules.model.repairArguments,
      }) as never,
      // A call's trace line is written with its journal entry: a resumed run reuses the result without tracing it again.
      tools: createToolRunner({
        tools,
        toolContext,
        journal,
        maxCallsPerReply: rules.tools.maxCallsPerReply,
        secrets: options.secrets ?? [],
        onResult: (result, step) => {
          traceTool(trace, result, step);
          trace.flush();
        },
        onSecretsMasked: (findings, call, step) => trace.log('secrets_masked', { step, id: call.id, name: call.name, findings }),
      }),
      hooks: createHooksActor(hooks),
      contextManager: createContextManagerActor({ record, builder, rules: rules.context }),
      summarizer: createSummarizer({
        record,
        builder,
        prompt: rules.messages.summaryPrompt,
        summarize: options.model.summarize,
        windowTokens: rules.context.windowTokens,
      }),
      approver: createApprover({
        requestPath: runFile(options.runDir, 'approvalRequest'),
        answerPath: runFile(options.runDir, 'approvalAnswer'),
        persist: () => late.save(),
        sources: options.answerSources ?? [],
        headless: rules.approvals.headless,
        onParked: () => late.park(),
        trust: { path: options.trustFile ?? trustFilePath(), repository: workspace },
        ...(options.approvalPollMs ? { pollMs: options.approvalPollMs } : {}),
      }),
    },
  });
  return { machine, tools, hooks };
}
type WiredActors = ReturnType<typeof wireActors>;

/** The actor, restored from the saved snapshot on resume, with the record appended to and the state saved at every checkpoint. */
function createCheckpointedActor(
  options: RunOptions,
  saved: SavedState | null,
  workspace: string,
  opened: OpenedSandbox,
  files: RunFiles,
  wired: WiredActors,
  late: LateBound,
  mode: ToolCallingState,
) {
  const { rules } = options;
  const { trace, transcript, journal } = files;
  const input: HarnessInput = {
    task: options.task,
    testCmd: options.testCmd,
    model: options.model.name,
    todo: readProgress(workspace) ?? [],
    ...(files.instructions ? { repositoryInstructions: files.instructions.text } : {}),
    overheadTokens: Math.ceil(toolSchemasJson(wired.tools).length / rules.context.charsPerToken) + 8,
    rememberedApprovals: rememberedForRepository(options.trustFile ?? trustFilePath(), workspace),
  };
  const startedAt = Date.now();
  const elapsed = () => (saved?.elapsedMs ?? 0) + (Date.now() - startedAt);
  // The step is read when an inspection event is traced, after the actor exists.
  const current: { actor: ReturnType<typeof createActor<HarnessMachine>> | null } = { actor: null };
  const tracer = createInspectionTracer(trace, () => current.actor?.getSnapshot().context.step ?? 0, options.inspect);
  // Background jobs of the process this run continues died with it: the trace and the agent are told.
  const lostJobs = opened.sandbox.takeLostJobs();
  if (saved) checkRestorable(wired.machine, (saved.snapshot as { value?: unknown }).value, runFile(options.runDir, 'state'));
  const restored = saved ? restoreSnapshot(saved, describeLostJobs(lostJobs), input.rememberedApprovals ?? []) : undefined;
  const actor = createActor(wired.machine, {
    input,
    inspect: tracer.inspect,
    // A persisted snapshot read from disk: XState types the option by the machine's own snapshot type.
    ...(restored ? { snapshot: restored as never } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  current.actor = actor;
  tracer.attach(actor, restored ? stateLabel((restored as { value: never }).value) : '');
  actor.on('record.append', (event) => transcript.append(event.messages));

  const save = () => {
    // With fsync on, the record and the journal reach the disk before a state that points past their ends could.
    if (options.fsync !== false) {
      transcript.sync();
      journal.sync();
    }
    // getPersistedSnapshot() is typed as a generic Snapshot; the harness context is in it.
    const persisted = actor.getPersistedSnapshot() as unknown as { context: HarnessContext };
    saveState(
      runFile(options.runDir, 'state'),
      {
        version: STATE_VERSION,
        savedAt: new Date().toISOString(),
        elapsedMs: elapsed(),
        recordLength: persisted.context.recordLength,
        traceIndex: files.position.traceIndex,
        snapshot: persisted,
        ...(mode.prompted ? { toolCalling: 'prompted' as const } : {}),
      },
      { fsync: options.fsync !== false },
    );
  };
  late.save = () => {
    if (options.saveState !== false) save();
  };
  actor.subscribe({
    // The end of each machine step: write what it logged, and save the state at checkpoints.
    next: (snapshot) => {
      trace.flush();
      transcript.flush();
      if (options.saveState === false) return;
      if (isCheckpoint(snapshot) || snapshot.status === 'done') save();
    },
    error: () => undefined,
  });
  return { actor, tracer, lostJobs };
}
type CheckpointedActor = ReturnType<typeof createCheckpointedActor>;

/** The trace's first lines: `start` (and run.json) for a new run, `resume` for a continued one, and the jobs that died with the last process. */
function writeStartLines(options: RunOptions, saved: SavedState | null, workspace: string, opened: OpenedSandbox, files: RunFiles, wired: WiredActors): void {
  const { trace, tracePath, firstIndex } = files;
  if (!saved && firstIndex > 0) {
    trace.log('resume', {
      fromState: 'start',
      recordLength: 0,
      elapsedMs: 0,
      note: 'killed before the first step was saved; starting over',
      ...thisTraceWriter(),
    });
  } else if (!saved) {
    writeRunMeta(options.runDir, {
      workspace,
      task: options.task,
      testCmd: options.testCmd,
      model: options.model.name,
      rules: options.rules,
      ...(options.model.baseURL ? { baseURL: options.model.baseURL } : {}),
      ...(options.configPath ? { configPath: options.configPath } : {}),
      ...(options.configFingerprint ? { configFingerprint: options.configFingerprint } : {}),
      ...(options.tracePath ? { tracePath } : {}),
    });
    trace.log('start', {
      version: TRACE_VERSION,
      task: options.task,
      testCmd: options.testCmd,
      model: options.model.name,
      endpoint: options.model.description,
      workspace,
      runDir: options.runDir,
      sandbox: opened.sandbox.description,
      visibility: opened.sandbox.visibility,
      tools: wired.tools.map((tool) => tool.name),
      rules: options.rules,
      ...(options.rulesSources ? { rulesFrom: options.rulesSources } : {}),
      ...thisTraceWriter(),
    });
    if (files.instructions) {
      const { text: _text, ...read } = files.instructions;
      trace.log('repository_instructions', read);
    }
  }
}

/** Runs the actor to its end; everything the steps opened is released when it settles, however it settles. */
function startActor(
  options: RunOptions,
  saved: SavedState | null,
  workspace: string,
  { sandbox: opened, files, wired, run }: { sandbox: OpenedSandbox; files: RunFiles; wired: WiredActors; run: CheckpointedActor },
  held: ResourceStack,
  late: LateBound,
): RunHandle {
  const { trace } = files;
  const { actor, tracer } = run;
  let parked = false;
  // Called from inside the approver as it starts: the machine stops once the current step has been saved.
  late.park = () => {
    parked = true;
    setImmediate(() => actor.stop());
  };
  if (saved)
    trace.log('resume', {
      fromState: tracer.label(),
      recordLength: saved.recordLength,
      elapsedMs: saved.elapsedMs,
      ...(saved.toolCalling ? { toolCalling: saved.toolCalling } : {}),
      ...thisTraceWriter(),
    });
  for (const job of run.lostJobs) trace.log('job', jobTraceLine(job));
  // Recorded outside the repository before the agent acts: a run that never reaches its clean-up still leaves what it wrote untrusted.
  beginRulesWatch(workspace, options.runDir);
  let interrupted = false;
  let tampered: string[] = [];
  const done = (async () => {
    try {
      actor.start();
      if (saved) actor.send({ type: 'clock.restart' });
      const output = await toPromise(actor);
      if (parked) {
        const pending = actor.getSnapshot().context.approvals.pending;
        const what = pending ? `${pending.tool} ${JSON.stringify(pending.args).slice(0, 200)}` : 'a call';
        throw new RunAwaitingApproval(
          `waiting for an approval of ${what} (${pending?.reason ?? 'approval rules'}); answer with: npx rein approve ${options.runDir} [--deny] [--message M], then continue with: npx rein resume ${options.runDir}`,
        );
      }
      if (interrupted) throw new RunInterrupted(`interrupted in ${tracer.label()}; continue with: npx rein resume ${options.runDir}`);
      return output;
    } catch (error) {
      if (error instanceof RunAwaitingApproval) {
        trace.log('interrupted', { state: tracer.label() });
        throw error;
      }
      if (error instanceof RunInterrupted) {
        trace.log('interrupted', { state: tracer.label() });
        throw error;
      }
      trace.log('crash', { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
      throw error;
    } finally {
      await held.release();
      // A rules file the agent wrote would be code the next run imports: it is not loaded again until a person trusts it.
      tampered = endRulesWatch(workspace, options.runDir);
    }
  })();
  const interrupt = () => {
    interrupted = true;
    actor.stop();
  };
  return {
    workspace,
    runDir: options.runDir,
    tracePath: files.tracePath,
    sandbox: opened.sandbox.description,
    sandboxMode: opened.sandbox.mode.kind,
    machine: wired.machine,
    actor,
    done,
    interrupt,
    tamperedRulesFiles: () => tampered,
  };
}

function realWorkspace(path: string): string {
  if (!existsSync(path)) throw new UsageError(`workspace not found: ${path}`);
  return realpathSync(path);
}

/**
 * The saved snapshot with the elapsed time written into the context, so the clock re-arms with what is left; `notices`
 * are queued for the model; the repository's remembered approvals are read afresh (a person may have edited the trust file).
 */
function restoreSnapshot(saved: SavedState, notices: string[], repository: HarnessContext['approvals']['remembered']): unknown {
  const snapshot = saved.snapshot as { context: HarnessContext };
  const { approvals } = snapshot.context;
  const remembered = [...repository, ...approvals.remembered.filter((entry) => entry.scope !== 'repository')];
  return {
    ...snapshot,
    context: { ...snapshot.context, elapsedMs: saved.elapsedMs, notices: [...snapshot.context.notices, ...notices], approvals: { ...approvals, remembered } },
  };
}
