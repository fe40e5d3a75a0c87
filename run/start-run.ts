import { rmSync } from 'node:fs';
import type { createActor, InspectionEvent } from 'xstate';
import type { AnswerSource } from '../actors/approvals/approver.js';
import type { HooksDeps } from '../actors/hooks/hooks-actor.js';
import type { McpHub } from '../actors/mcp/hub.js';
import type { ModelSource } from '../actors/model/model-source.js';
import { UsageError } from '../lib/errors.js';
import type { TraceLine } from '../lib/trace/trace-events.js';
import type { HarnessMachine, HarnessOptions } from '../machines/harness-machine.js';
import type { HarnessOutput } from '../machines/types.js';
import type { Rules } from '../rules/schema.js';
import type { RulesFingerprint } from '../rules/trust/index.js';
import { toolRegistry } from '../tools/index.js';
import { buildCommandEnv } from '../tools/sandbox/plan/environment.js';
import { enableRegistered } from '../tools/select-tools.js';
import type { AnyTool } from '../tools/types.js';
import { type AgentLink, openDelegation } from './delegation/delegation.js';
import { admitRun } from './parts/admission.js';
import { watchHostFiles } from './parts/host-files-watch.js';
import { provideActors, ToolCallingMode } from './parts/machine.js';
import { planServers, startServers } from './parts/mcp-servers.js';
import { tamperWarning, watchRulesFiles } from './parts/rules-watch.js';
import { createRunActor } from './parts/run-actor.js';
import { openRunFiles } from './parts/run-files.js';
import { runToEnd } from './parts/run-to-end.js';
import { openSandbox, planSandbox, policyOf } from './parts/sandbox.js';
import { writeStartLines } from './parts/start-lines.js';
import { checkTaskFits } from './parts/task-fit.js';
import { assembleToolbox } from './parts/toolbox.js';
import { runFile } from './record/run-dir.js';
import { hasSavedState, loadState, type SavedState } from './record/state-file.js';
import { ResourceStack } from './resource-stack.js';
import { readOnlyCalls } from './snapshots/read-only-calls.js';

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
  /**
   * Survive a power loss or a crash of the operating system too: fsync the record, the call journal and the saved state
   * at every checkpoint (three fsyncs a step). Default false: every step's lines and state reach the kernel before the
   * next action either way, which is all a killed process (kill -9 included) needs to lose nothing.
   */
  fsync?: boolean;
  /** Where workspace snapshots are stored (default: `snapshots/` in the user state dir, outside every workspace). */
  snapshotStore?: string;
  /** Save the state for `rein resume` after every step (default true; benchmarks measure with and without). */
  saveState?: boolean;
  /**
   * MCP servers you connected yourself (`openMcpHub`, actors/mcp/hub.ts), instead of the ones the rules declare, which
   * the run starts itself: their tools are added after rein's, their lifecycle goes into the trace, and the run closes
   * them when it ends.
   */
  mcp?: McpHub;
  /** Called before each step of starting the run (`LAUNCH_STEPS`); a throw there is a failed start: everything opened before it is released. Tests throw from it. */
  onLaunchStep?: (step: LaunchStep) => void;
  /** Who can answer an approval in this process (the terminal prompt, the page); none: the run is headless (approvals.headless). */
  answerSources?: readonly AnswerSource[];
  /** How often the approver looks for an answer from `rein approve`, in ms (tests make it short). */
  approvalPollMs?: number;
  /** Hook functions a rules module exports, for `hooks.<moment>[].function` entries. */
  hookFunctions?: HooksDeps['functions'];
  /** Where MCP servers' `${NAME}` values and tokens are read (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** What a person should read as the run starts and ends: which servers start from `.mcp.json`, which failed, rules files the run changed. */
  onNotice?: (text: string) => void;
  /** For a delegated child: its agent, its depth and its parent (run/delegation/); absent for the run a person started. */
  agentLink?: AgentLink;
  /** Model sources for agents by name, instead of the agent's endpoint or the parent's model (tests script each agent). */
  agentModels?: Readonly<Record<string, ModelSource>>;
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
 * Starts a harness run, assembled from its parts in the order each needs the last: the admission checks, the
 * rules-file watch, the sandbox's plan and the MCP servers' list (their secrets are masked from the first trace line),
 * the run files, the sandbox, the MCP servers, the tools, the machine with its actors, the actor; then it runs. A part
 * that throws is the start failing: everything opened before it is released. Resolves once the run is under way.
 *
 * @example const run = await startRun({ workspace, task, testCmd: 'npm test', rules, model, runDir }); const output = await run.done;
 */
export async function startRun(options: RunOptions): Promise<RunHandle> {
  return assembleRun(withRegisteredTools(options), null);
}

/**
 * Continues a run killed at any point, from its run directory: the saved machine state, the record up to it and the
 * journal of executed tool calls. A run killed before its first step was saved starts over in the same directory; the
 * trace keeps what was written and continues after it.
 */
export async function resumeRun(options: RunOptions): Promise<RunHandle> {
  const statePath = runFile(options.runDir, 'state');
  if (!hasSavedState(statePath)) {
    rmSync(runFile(options.runDir, 'record'), { force: true });
    return assembleRun(withRegisteredTools(options), null);
  }
  const saved = loadState(statePath);
  const status = (saved.snapshot as { status?: string }).status;
  if (status !== 'active')
    throw new UsageError(
      `${options.runDir}: this run already ended (${(saved.snapshot as { context?: { status?: string } }).context?.status ?? status}); nothing to resume`,
    );
  return assembleRun(withRegisteredTools(options), saved);
}

/** The run's whole tool registry (rein's and yours), with yours enabled in the rules (a tool registered once is offered where the phases allow it). */
function withRegisteredTools(options: RunOptions): RunOptions {
  const { replaceTools } = options;
  const tools = toolRegistry(options.tools, { only: replaceTools === 'only', replace: replaceTools === 'same-name', source: 'startRun tools' });
  return { ...options, tools, replaceTools: 'only', rules: enableRegistered(options.rules, tools) };
}

/** The steps of starting a run, in order; each owns what it opens. `onLaunchStep` is called before each. */
export const LAUNCH_STEPS = ['watch', 'plan', 'files', 'sandbox', 'mcp', 'actors', 'start'] as const;
export type LaunchStep = (typeof LAUNCH_STEPS)[number];

async function assembleRun(options: RunOptions, saved: SavedState | null): Promise<RunHandle> {
  const held = new ResourceStack();
  const step = (name: LaunchStep) => options.onLaunchStep?.(name);
  const notice = (text: string) => options.onNotice?.(text);
  const env = options.env ?? process.env;
  // A task the window cannot hold is refused before anything exists (a resumed run's task fitted when it started).
  if (!saved) checkTaskFits(options);
  const workspace = admitRun(options);
  step('watch');
  const watch = watchRulesFiles(workspace, options.runDir, held);
  try {
    step('plan');
    const plannedSandbox = planSandbox(options, workspace);
    const servers = options.mcp ? null : planServers({ rules: options.rules, workspace, runDir: options.runDir, resume: saved !== null, env, notice });
    const secrets = [...(options.secrets ?? []), ...(servers?.secrets ?? [])];
    const withSecrets = { ...options, secrets };
    step('files');
    const files = openRunFiles({ options: withSecrets, saved, workspace, secrets }, held);
    watchHostFiles({ workspace, env, trace: files.trace, notice }, held);
    step('sandbox');
    const sandbox = held.own('the sandbox and its jobs', openSandbox(plannedSandbox, files.trace), (box) => box.dispose());
    step('mcp');
    const mcp = options.mcp ?? (servers ? await startServers(servers, { ...options, workspace, env, trace: files.trace, notice }) : null);
    if (options.mcp) options.mcp.attach(({ kind, ...note }) => files.trace.log(kind, note as never));
    // Registered after the trace: the servers' closing lines reach the file before it closes.
    if (mcp) held.own('the MCP servers', mcp, (hub) => hub.close());
    // A step that only read keeps the last snapshot's tree; an MCP server runs beside the run and may write at any time.
    if (!mcp)
      files.snapshots.reuseScansWhen({
        calls: readOnlyCalls({ workspace, env: buildCommandEnv(env, policyOf(options.rules).envAllow) }),
        jobsRunning: () => sandbox.jobs().some((job) => job.state === 'running'),
      });
    step('actors');
    const delegation = openDelegation({
      options: withSecrets,
      trace: files.trace,
      launch: { start: startRun, resume: resumeRun },
      elapsedMs: saved?.elapsedMs ?? 0,
    });
    const toolbox = assembleToolbox({ options: withSecrets, workspace, sandbox, mcp, delegation: delegation?.port ?? null }, held);
    // Auto tool calling's switch to prompted is part of the run's state: a resumed run goes on in the mode it had.
    const mode = new ToolCallingMode(saved?.toolCalling === 'prompted');
    const machine = provideActors({ options: withSecrets, workspace, files, toolbox, mode });
    const run = createRunActor({ options: withSecrets, saved, workspace, machine, files, toolbox, mode, lostJobs: sandbox.takeLostJobs() });
    delegation?.attach(run.actor);
    step('start');
    writeStartLines({ options: withSecrets, saved, workspace, sandbox, files, toolbox });
    const { done, interrupt, park } = runToEnd({ options: withSecrets, saved, run, trace: files.trace, stoppedIn: files.stoppedIn }, held);
    delegation?.parkWith(park);
    return {
      workspace,
      runDir: options.runDir,
      tracePath: files.tracePath,
      sandbox: sandbox.description,
      sandboxMode: sandbox.mode.kind,
      machine,
      actor: run.actor,
      done,
      interrupt,
      tamperedRulesFiles: () => watch.tampered(),
    };
  } catch (error) {
    await held.release();
    if (watch.tampered().length > 0) notice(tamperWarning(watch.tampered(), workspace));
    throw error;
  }
}
