import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { UsageError } from 'rein/lib';
import type { HarnessOutput } from 'rein/machines';
import { looseningsOf, mergeRules, type Plain, type Rules } from 'rein/rules';
import { type LoadedRules, loadRules, type ModelSource, type RunHandle, runFile, startRun } from 'rein/run';
import { exportRunAsAtif, writeTrajectory } from 'rein-telemetry/atif/export-run.js';
import type { EvalJob } from './job.js';
import type { RunRecord } from './run-record.js';
import { runShell, type ShellResult } from './shell.js';
import { simulatedAgentModels, simulatedModelSource } from './simulated/model-source.js';
import { gradeSweBenchRun } from './swebench/grade-run.js';
import { checkoutInstance } from './swebench/workspace.js';
import { metricsFromTraceFile } from './trace-metrics.js';

/** Hooks the worker gives a job: phase deadlines for the parent, and the running harness (to stop it on SIGTERM). */
interface JobHooks {
  /** `workspace` lets the parent remove it when the worker dies. */
  phase(phase: 'setup' | 'agent' | 'check', seconds: number, workspace: string): void;
  started(handle: RunHandle): void;
}

/** A run's ATIF trajectory, beside its trace, when eval runs with --atif. */
const ATIF_FILE = 'trajectory.json';

const NO_HOOKS: JobHooks = { phase: () => undefined, started: () => undefined };

/**
 * Runs one (task, configuration, repeat): a fresh copy of `repo/` in a temp
 * dir, `setup_cmd`, the harness, then the grader's `check_cmd` (resolved =
 * exit 0). Never throws for a failing run; a harness exception is recorded
 * as `crash`.
 *
 * @example const record = await runEvalJob(job);
 */
export async function runEvalJob(job: EvalJob, hooks: JobHooks = NO_HOOKS): Promise<RunRecord> {
  const startedAt = new Date().toISOString();
  const workspace = mkdtempSync(join(tmpdir(), `rein-eval-${job.task.id}-`));
  rmSync(job.runDir, { recursive: true, force: true });
  mkdirSync(job.runDir, { recursive: true });
  try {
    // Before anything of the task runs: rules that may not be loaded (a task widening them, a queued module nobody
    // trusted) are this run's recorded end, not a crash of the worker.
    let loaded: LoadedRules;
    try {
      loaded = await rulesFor(job);
      refuseContainedModule(job);
    } catch (error) {
      if (error instanceof UsageError) return recordFor(job, startedAt, { status: 'crash', reason: error.message, wallSeconds: 0 }, null);
      throw error;
    }
    const prepared = prepareWorkspace(job, workspace);
    if (prepared) return recordFor(job, startedAt, { status: 'setup_failed', reason: prepared, wallSeconds: 0 }, null);
    const env = { REIN_TASK_DIR: job.task.dir, REIN_WORKSPACE: workspace };
    if (job.task.setup_cmd) {
      hooks.phase('setup', job.task.check_timeout_s, workspace);
      // A queued task's setup is contained like the agent's commands (the network on, for installs), unless the worker trusts its queue.
      const contained = job.taskCode === 'contained';
      const setup = await runShell(job.task.setup_cmd, {
        cwd: workspace,
        timeoutS: job.task.check_timeout_s,
        env,
        sandbox: contained,
        readable: contained ? [job.task.dir] : [],
        ...(contained ? { network: true, requireSandbox: true } : {}),
      });
      if (setup.exitCode !== 0)
        return recordFor(job, startedAt, { status: 'setup_failed', reason: `setup_cmd ${describeExit(setup)}: ${tail(setup.output)}`, wallSeconds: 0 }, null);
    }
    const model = await modelFor(job, loaded.rules);
    hooks.phase('agent', job.task.timeout_s, workspace);
    const began = Date.now();
    const outcome = await runHarness(job, workspace, loaded, model, hooks);
    const wallSeconds = (Date.now() - began) / 1000;
    if (job.atif) writeRunAtif(job.runDir);
    if ('crash' in outcome) return recordFor(job, startedAt, { status: 'crash', reason: outcome.crash, wallSeconds }, null);
    hooks.phase('check', job.task.check_timeout_s, workspace);
    if (job.task.swebench) {
      const graded = await gradeSweBenchRun(job.task.swebench, workspace, job.runDir, job.task.check_timeout_s);
      return recordFor(job, startedAt, { status: outcome.status, reason: outcome.reason, wallSeconds }, graded.check, graded.facts);
    }
    const check = await runShell(job.task.check_cmd, { cwd: workspace, timeoutS: job.task.check_timeout_s, env, sandbox: true, readable: [job.task.dir] });
    return recordFor(job, startedAt, { status: outcome.status, reason: outcome.reason, wallSeconds }, check);
  } finally {
    if (!job.keepWorkspace) rmSync(workspace, { recursive: true, force: true });
  }
}

/** A fresh copy of the task's repo/, or a SWE-bench instance's checkout; a problem is returned as text. */
function prepareWorkspace(job: EvalJob, workspace: string): string | null {
  if (!job.task.swebench) {
    cpSync(job.task.repoDir, workspace, { recursive: true });
    return null;
  }
  try {
    checkoutInstance(job.task.swebench.source, job.task.swebench.instance.base_commit, workspace);
    return null;
  } catch (error) {
    return `checkout of ${job.task.swebench.instance.base_commit} failed: ${tail(String((error as { stderr?: string }).stderr || (error as Error).message))}`;
  }
}

/** The run's trajectory beside its trace; a failure to write it never fails the run. */
function writeRunAtif(runDir: string): void {
  try {
    writeTrajectory(join(runDir, ATIF_FILE), exportRunAsAtif(runDir));
  } catch (error) {
    process.stderr.write(`rein eval: no ATIF trajectory for ${runDir}: ${(error as Error).message}\n`);
  }
}

async function rulesFor(job: EvalJob): Promise<LoadedRules> {
  const layer: Plain = {
    verification: { command: job.task.test_cmd },
    budgets: { maxSeconds: job.task.timeout_s },
    ...(job.price && job.priceSource !== 'rules' ? { model: { prices: { [job.modelName]: job.price } } } : {}),
  };
  const base = {
    preset: job.config.preset,
    ...(job.config.configPath ? { configPath: job.config.configPath } : {}),
    ...(job.config.received ? { received: job.config.received } : {}),
  };
  const loaded = await loadRules({ ...base, overrides: mergeRules(job.task.rules as Plain | undefined, layer) });
  // A task's own rules layer comes with the task set (a benchmark's, a queue job's): it may narrow the rules, never widen them.
  if (job.task.rules) {
    const without = await loadRules({ ...base, overrides: layer });
    const widened = looseningsOf(without.rules, loaded.rules);
    if (widened.length > 0)
      throw new UsageError(
        [
          `task ${job.task.id}: its task.json rules loosen the configuration's; a task may only keep or narrow them. Refused:`,
          ...widened.map((line) => `  ${line}`),
        ].join('\n'),
      );
  }
  return loaded;
}

/** A queued task's own simulated model module would be imported here, on the worker host: not unless the worker trusts its queue. */
function refuseContainedModule(job: EvalJob): void {
  if (job.taskCode !== 'contained' || job.model.kind !== 'simulated' || job.task.simulated?.kind !== 'module') return;
  throw new UsageError(
    `task ${job.task.id}: its simulated model is a module of the task (${job.task.simulated.path}), which this worker would import outside the sandbox; start the worker with --host-task-code if you control this queue`,
  );
}

async function modelFor(job: EvalJob, rules: Rules): Promise<ModelSource> {
  if (job.model.kind === 'endpoint') {
    // Loaded only here: the OpenAI SDK is a large import that simulated runs never need.
    const { openAIModelSource, resolveEndpoint } = await import('rein/actors');
    return openAIModelSource(
      resolveEndpoint({ model: job.model.model, ...(job.model.baseURL ? { baseURL: job.model.baseURL } : {}), env: process.env }),
      rules,
    );
  }
  if (!job.task.simulated) throw new Error(`task ${job.task.id} has no simulated model`);
  return simulatedModelSource(job.task.simulated, rules, { prompt: job.task.prompt, testCmd: job.task.test_cmd });
}

async function runHarness(
  job: EvalJob,
  workspace: string,
  loaded: LoadedRules,
  model: ModelSource,
  hooks: JobHooks,
): Promise<HarnessOutput | { crash: string }> {
  try {
    const handle = await startRun({
      workspace,
      task: job.task.prompt,
      testCmd: job.task.test_cmd,
      rules: evalApprovals(loaded.rules),
      model,
      runDir: job.runDir,
      guards: loaded.guards,
      actions: loaded.actions,
      hookFunctions: loaded.hookFunctions,
      tools: loaded.tools,
      secrets: [process.env.OPENAI_API_KEY].filter((value): value is string => Boolean(value)),
      // A simulated task's agents (the reviewer recipe's reviewer) are simulated too; an endpoint run's use the endpoint.
      ...(job.model.kind === 'simulated' && job.task.simulated ? { agentModels: simulatedAgentModels(job.task.simulated, loaded.rules) } : {}),
      // An eval run is never resumed mid-way (its workspace is a temp copy; a run that did not finish is run
      // again from the start), so syncing its state to disk every step would buy nothing and stall the step.
      fsync: false,
    });
    hooks.started(handle);
    return await handle.done;
  } catch (error) {
    return { crash: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

/**
 * Nobody answers in an eval or on a queue worker: a run whose rules would wait for an answer (approvals.headless
 * exit) is answered by deny instead, so asks are counted (approvalAsks, approvalDenials) and the run goes on.
 */
function evalApprovals(rules: Rules): Rules {
  return rules.approvals.headless === 'exit' ? { ...rules, approvals: { ...rules.approvals, headless: 'deny' } } : rules;
}

interface Ending {
  status: string;
  reason: string;
  wallSeconds: number;
}

/** The results line for a job, with counts from its trace (also used for runs the parent had to kill). */
export function recordFor(job: EvalJob, startedAt: string, ending: Ending, check: ShellResult | null, facts: Record<string, unknown> = {}): RunRecord {
  const tracePath = runFile(job.runDir, 'trace');
  const { end: _end, ...metrics } = metricsFromTraceFile(tracePath, job.price);
  return {
    task: job.task.id,
    config: job.config.label,
    repeat: job.repeat,
    resolved: check?.exitCode === 0,
    status: ending.status,
    reason: ending.reason,
    ...metrics,
    price: job.priceSource,
    wallSeconds: Math.round(ending.wallSeconds * 1000) / 1000,
    checkExitCode: check?.exitCode ?? null,
    // A grader that hung is said in the output the reports show, not left as an empty string.
    checkOutput: check ? (check.timedOut ? `check_cmd timed out after ${job.task.check_timeout_s} s\n${tail(check.output)}` : tail(check.output)) : '',
    model: job.modelName,
    configHash: job.configHash,
    tracePath: relative(job.outDir, tracePath),
    startedAt,
    ...facts,
  };
}

function describeExit(result: ShellResult): string {
  if (result.timedOut) return 'timed out';
  return result.exitCode === null ? 'could not start' : `exited ${result.exitCode}`;
}

function tail(text: string, chars = 1500): string {
  return text.length <= chars ? text : `…${text.slice(-chars)}`;
}
