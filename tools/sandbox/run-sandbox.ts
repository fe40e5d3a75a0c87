import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CommandPolicy } from '../../rules/command-policy.js';
import { type JobStore, type JobView, jobLogDir, logCutNote, MAX_LOG_BYTES, openJobStore } from './jobs/job-store.js';
import { buildSandboxArgv, describeSandbox, resolveSandbox, type SandboxMode } from './launch/bubblewrap.js';
import { JOB_STOP_WAIT_MS } from './lifetime/kill-timings.js';
import type { GroupRunResult } from './lifetime/process-group.js';
import { type SandboxLimits, sandboxLimits } from './limits/sandbox-limits.js';
import { summarizeVisibility, type VisibilitySummary } from './plan/describe-visibility.js';
import { buildCommandEnv } from './plan/environment.js';
import { planVisibility, type VisibilityPlan } from './plan/visibility.js';
import { type CommandOptions, type Supervisor, startSupervisor } from './supervisor/supervisor.js';

/** How often running jobs' logs are checked against MAX_LOG_BYTES: an fstat of each held log, cheap enough to do often. */
const LOG_CHECK_MS = 250;

export interface RunSandboxOptions {
  /** Real workspace root. */
  root: string;
  policy: CommandPolicy;
  /** The verification command (its programs' toolchains are shown). */
  testCmd?: string;
  protectedFiles?: readonly string[];
  /** Where `jobs.jsonl` and the job logs go (the run directory); a temp folder, removed at the end, when absent. */
  jobsDir?: string;
  /**
   * Whether a command is one the verification gate counts (the test command, a check's command). Such a command runs
   * in a sandbox of its own, started for it and ended after it: nothing the agent started (a background job, a
   * process a command left) shares its PID namespace, so nothing can reach its shell, its supervisor or their pipes
   * through `/proc/<pid>/fd`, ptrace it, or forge its report or output.
   */
  isCheck?: (command: string) => boolean;
  /** A job's log is cut back past this many bytes (MAX_LOG_BYTES by default). */
  maxLogBytes?: number;
  /** Job lifecycle lines for the trace: started, ended, stopped, lost. */
  onJob?: (job: JobView) => void;
  /** For tests: the home directory, PATH and environment the plan is made from (default: the harness's). */
  home?: string;
  pathValue?: string;
  env?: NodeJS.ProcessEnv;
}

/** The run's sandbox, handed to tools through `ToolContext.sandbox`. */
export interface RunSandbox {
  readonly mode: SandboxMode;
  /** One line: how commands run and what they can see. */
  readonly description: string;
  /** What the trace's start line records (null unsandboxed). */
  readonly visibility: VisibilitySummary | null;
  /** What each sandbox of the run may use (memory a process, processes at once). */
  readonly limits: SandboxLimits;
  runCommand(command: string, options: CommandOptions): Promise<GroupRunResult>;
  /** Starts a background job; a failure to start is thrown with a message for the agent. */
  startJob(command: string): Promise<JobView>;
  job(id: string): JobView | undefined;
  jobs(): JobView[];
  /** Output since the last read, within `cap` characters. */
  readJob(id: string, cap: number): { text: string; newBytes: number; size: number };
  stopJob(id: string): Promise<JobView>;
  /** Waits until the job ends, `ms` pass or `signal` aborts. */
  waitJob(id: string, ms: number, signal: AbortSignal): Promise<JobView>;
  /** Jobs an earlier process of this run left running: they died with it. Reported once. */
  takeLostJobs(): JobView[];
  /** Stops every job (SIGTERM, SIGKILL after the grace) and ends the sandbox. */
  dispose(): Promise<void>;
}

/** What a run's sandbox will be, decided before anything is written or started. */
export interface RunSandboxPlan {
  mode: SandboxMode;
  /** What commands see (null unsandboxed). */
  plan: VisibilityPlan | null;
}

/**
 * The sandbox's mode and visibility plan. It throws `UsageError` for rules it cannot honour (a credential path in
 * `permissions.readable`), so a run checks its rules against the machine before it writes a file.
 *
 * @example const planned = planRunSandbox({ root, policy, jobsDir: runDir }); …; createRunSandbox(options, planned)
 */
export function planRunSandbox(options: RunSandboxOptions & { jobsDir: string }): RunSandboxPlan {
  const mode = resolveSandbox(options.policy);
  if (mode.kind !== 'bwrap') return { mode, plan: null };
  const plan = planVisibility({
    root: options.root,
    policy: options.policy,
    testCmd: options.testCmd,
    protectedFiles: options.protectedFiles,
    // Job logs are written from inside the sandbox: their folder is the one writable place outside the workspace.
    writable: [jobLogDir(options.jobsDir)],
    home: options.home,
    pathValue: options.pathValue,
    env: options.env,
  });
  return { mode, plan };
}

/**
 * One sandbox for a whole run: the visibility plan is made once, and a
 * supervisor (tools/sandbox/supervisor/supervisor.ts), started with the first command, runs
 * inside bubblewrap, or on the host when the rules allow running
 * unsandboxed, for every command and background job of the run. A supervisor that dies (a command killed it) is replaced
 * at the next command; its jobs are reported lost.
 *
 * Throws `UsageError` for rules it cannot honour (a credential path in
 * `permissions.readable`).
 *
 * @example const sandbox = createRunSandbox({ root, policy, testCmd: 'pytest -q', jobsDir: runDir }); …; await sandbox.dispose();
 */
export function createRunSandbox(options: RunSandboxOptions, planned?: RunSandboxPlan): RunSandbox {
  const ownJobsDir = options.jobsDir === undefined;
  const jobsDir = options.jobsDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'rein-jobs-'));
  const { mode, plan } = planned ?? planRunSandbox({ ...options, jobsDir });
  const store: JobStore = openJobStore(jobsDir, { maxLogBytes: options.maxLogBytes });
  const env = buildCommandEnv(options.env ?? process.env, options.policy.envAllow);
  const limits = sandboxLimits(options.policy.limits);
  let supervisor: Supervisor | null = null;
  let disposed = false;
  const waiters = new Set<() => void>();
  const jobTags = new Map<string, string>();

  const ended = (job: JobView | undefined) => {
    if (!job) return;
    options.onJob?.(job);
    for (const wake of waiters) wake();
  };
  const wrap = plan && mode.kind === 'bwrap' ? (inner: string[]) => buildSandboxArgv(mode.bwrap, plan, inner) : null;
  /** A verification command's own sandbox: one supervisor for one command, ended after it. */
  const runIsolated = async (command: string, commandOptions: CommandOptions): Promise<GroupRunResult> => {
    if (disposed) throw new Error('the run has ended');
    const isolated = startSupervisor({ wrap, cwd: options.root, env, limits });
    try {
      return await isolated.runCommand(command, commandOptions);
    } finally {
      await isolated.close();
    }
  };
  const spawnSupervisor = (): Supervisor =>
    startSupervisor({
      wrap,
      cwd: options.root,
      env,
      limits,
      jobLogs: { maxBytes: options.maxLogBytes ?? MAX_LOG_BYTES, cutNote: logCutNote(options.maxLogBytes ?? MAX_LOG_BYTES) },
      onJobEnd: (tag, status) => {
        const id = [...jobTags].find(([, candidate]) => candidate === tag)?.[0];
        if (id === undefined) return;
        const job = store.get(id);
        // A job the agent or the run stopped already says so; otherwise it ended by itself.
        if (job?.state === 'running') ended(store.end(id, 'exited', status, null));
      },
      onExit: (_detail, expected) => {
        for (const job of store.running())
          ended(store.end(job.id, expected ? 'stopped' : 'lost', null, expected ? 'the run ended' : 'the sandbox ended (a command killed its supervisor)'));
        supervisor = null;
      },
    });
  const current = (): Supervisor => {
    if (disposed) throw new Error('the run has ended');
    supervisor ??= spawnSupervisor();
    return supervisor;
  };
  // Started by the first command or job, not here: a run that never runs one (a read-only agent, a test with
  // stand-in tools) pays for no sandbox process.
  const logCheck = setInterval(() => store.capLogs(), LOG_CHECK_MS);
  logCheck.unref();

  return {
    mode,
    description: describeSandbox(mode, plan ?? undefined),
    visibility: plan ? summarizeVisibility(plan) : null,
    limits,
    async runCommand(command, commandOptions) {
      if (mode.kind === 'unavailable') return { ending: 'failed', exitCode: null, output: emptyOutput(), failure: mode.reason };
      // Unsandboxed there is no namespace to keep the agent's processes out: the command runs as any other.
      if (wrap && options.isCheck?.(command)) return runIsolated(command, commandOptions);
      return current().runCommand(command, commandOptions);
    },
    async startJob(command) {
      if (mode.kind === 'unavailable') throw new Error(mode.reason);
      const job = store.create(command);
      const tag = `j${job.id}`;
      jobTags.set(job.id, tag);
      try {
        store.started(job.id, await current().startJob(tag, job.log, command));
      } catch (error) {
        store.end(job.id, 'lost', null, (error as Error).message);
        throw error;
      }
      options.onJob?.(job);
      return job;
    },
    job: (id) => store.get(id),
    jobs: () => store.list(),
    readJob: (id, cap) => store.readNew(id, cap),
    async stopJob(id) {
      const job = store.get(id)!;
      if (job.state !== 'running') return job;
      store.end(id, 'stopped', null, 'stopped by the agent');
      if (job.pgid !== null) supervisor?.stopGroup(job.pgid);
      await supervisor?.waitForJobs([jobTags.get(id)!], JOB_STOP_WAIT_MS);
      ended(job);
      return job;
    },
    async waitJob(id, ms, signal) {
      const job = store.get(id)!;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(finish, ms);
        const wake = () => {
          if (job.state !== 'running') finish();
        };
        function finish() {
          clearTimeout(timer);
          waiters.delete(wake);
          signal.removeEventListener('abort', finish);
          resolve();
        }
        if (job.state !== 'running' || signal.aborted) return finish();
        waiters.add(wake);
        signal.addEventListener('abort', finish, { once: true });
      });
      return job;
    },
    takeLostJobs: () => store.takeLost(),
    async dispose() {
      if (disposed) return;
      disposed = true;
      clearInterval(logCheck);
      const running = store.running();
      for (const job of running) {
        store.end(job.id, 'stopped', null, 'the run ended');
        if (job.pgid !== null) supervisor?.stopGroup(job.pgid);
      }
      await supervisor?.waitForJobs(
        running.map((job) => jobTags.get(job.id)!),
        JOB_STOP_WAIT_MS,
      );
      for (const job of running) options.onJob?.(job);
      await supervisor?.close();
      store.close();
      if (ownJobsDir) fs.rmSync(jobsDir, { recursive: true, force: true });
    },
  };
}

function emptyOutput(): GroupRunResult['output'] {
  return { push() {}, totalChars: 0, finish: (prefix = '') => prefix };
}
