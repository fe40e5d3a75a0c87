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
import { type GitCopy, makeGitCopy, removeGitCopy } from './plan/git-copy.js';
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
  /** The private copy of `.git` commands work in; removed when the sandbox is disposed. */
  gitCopy: GitCopy | null;
}

/**
 * The sandbox's mode and visibility plan. It throws `UsageError` for rules it cannot honour (a credential path in
 * `permissions.readable`), so a run checks its rules against the machine before it writes a file.
 *
 * @example const planned = planRunSandbox({ root, policy, jobsDir: runDir }); …; createRunSandbox(options, planned)
 */
export function planRunSandbox(options: RunSandboxOptions & { jobsDir: string }): RunSandboxPlan {
  const mode = resolveSandbox(options.policy);
  if (mode.kind !== 'bwrap') return { mode, plan: null, gitCopy: null };
  const gitCopy = makeGitCopy(options.root);
  try {
    const plan = planVisibility({
      gitCopy,
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
    return { mode, plan, gitCopy };
  } catch (error) {
    removeGitCopy(gitCopy);
    throw error;
  }
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
  const jobsDir = options.jobsDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'rein-jobs-'));
  return new WarmSandbox(options, { jobsDir, ownJobsDir: options.jobsDir === undefined }, planned ?? planRunSandbox({ ...options, jobsDir }));
}

/** The run's sandbox: one supervisor, started with the first command or job, replaced when a command kills it. */
class WarmSandbox implements RunSandbox {
  readonly mode: SandboxMode;
  readonly description: string;
  readonly visibility: VisibilitySummary | null;
  readonly limits: SandboxLimits;
  private readonly options: RunSandboxOptions;
  private readonly jobsDir: { jobsDir: string; ownJobsDir: boolean };
  private readonly store: JobStore;
  private readonly env: Record<string, string>;
  private readonly wrap: ((inner: string[]) => string[]) | null;
  private readonly waiters = new Set<() => void>();
  private readonly jobTags = new Map<string, string>();
  private readonly logCheck: NodeJS.Timeout;
  private supervisor: Supervisor | null = null;
  private disposed = false;
  private readonly gitCopy: GitCopy | null;

  constructor(options: RunSandboxOptions, jobsDir: { jobsDir: string; ownJobsDir: boolean }, { mode, plan, gitCopy }: RunSandboxPlan) {
    this.options = options;
    this.gitCopy = gitCopy;
    this.jobsDir = jobsDir;
    this.mode = mode;
    this.description = describeSandbox(mode, plan ?? undefined);
    this.visibility = plan ? summarizeVisibility(plan) : null;
    this.limits = sandboxLimits(options.policy.limits);
    this.store = openJobStore(jobsDir.jobsDir, { maxLogBytes: options.maxLogBytes });
    this.env = buildCommandEnv(options.env ?? process.env, options.policy.envAllow);
    this.wrap = plan && mode.kind === 'bwrap' ? (inner: string[]) => buildSandboxArgv(mode.bwrap, plan, inner) : null;
    // Started by the first command or job, not here: a run that never runs one (a read-only agent, a test with
    // stand-in tools) pays for no sandbox process.
    this.logCheck = setInterval(() => this.store.capLogs(), LOG_CHECK_MS);
    this.logCheck.unref();
  }

  async runCommand(command: string, commandOptions: CommandOptions): Promise<GroupRunResult> {
    if (this.mode.kind === 'unavailable') return { ending: 'failed', exitCode: null, output: emptyOutput(), failure: this.mode.reason };
    // Unsandboxed there is no namespace to keep the agent's processes out: the command runs as any other.
    if (this.wrap && this.options.isCheck?.(command)) return this.runIsolated(command, commandOptions);
    return this.current().runCommand(command, commandOptions);
  }

  async startJob(command: string): Promise<JobView> {
    if (this.mode.kind === 'unavailable') throw new Error(this.mode.reason);
    const job = this.store.create(command);
    const tag = `j${job.id}`;
    this.jobTags.set(job.id, tag);
    try {
      this.store.started(job.id, await this.current().startJob(tag, job.log, command));
    } catch (error) {
      this.store.end(job.id, 'lost', null, (error as Error).message);
      throw error;
    }
    this.options.onJob?.(job);
    return job;
  }

  job(id: string): JobView | undefined {
    return this.store.get(id);
  }

  jobs(): JobView[] {
    return this.store.list();
  }

  readJob(id: string, cap: number) {
    return this.store.readNew(id, cap);
  }

  async stopJob(id: string): Promise<JobView> {
    const job = this.store.get(id)!;
    if (job.state !== 'running') return job;
    this.store.end(id, 'stopped', null, 'stopped by the agent');
    if (job.pgid !== null) this.supervisor?.stopGroup(job.pgid);
    await this.supervisor?.waitForJobs([this.jobTags.get(id)!], JOB_STOP_WAIT_MS);
    this.ended(job);
    return job;
  }

  async waitJob(id: string, ms: number, signal: AbortSignal): Promise<JobView> {
    const job = this.store.get(id)!;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(finish, ms);
      const wake = () => {
        if (job.state !== 'running') finish();
      };
      const waiters = this.waiters;
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
  }

  takeLostJobs(): JobView[] {
    return this.store.takeLost();
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    clearInterval(this.logCheck);
    const running = this.store.running();
    for (const job of running) {
      this.store.end(job.id, 'stopped', null, 'the run ended');
      if (job.pgid !== null) this.supervisor?.stopGroup(job.pgid);
    }
    await this.supervisor?.waitForJobs(
      running.map((job) => this.jobTags.get(job.id)!),
      JOB_STOP_WAIT_MS,
    );
    for (const job of running) this.options.onJob?.(job);
    await this.supervisor?.close();
    this.store.close();
    if (this.jobsDir.ownJobsDir) fs.rmSync(this.jobsDir.jobsDir, { recursive: true, force: true });
    removeGitCopy(this.gitCopy);
  }

  private ended(job: JobView | undefined): void {
    if (!job) return;
    this.options.onJob?.(job);
    for (const wake of this.waiters) wake();
  }

  /** A verification command's own sandbox: one supervisor for one command, ended after it. */
  private async runIsolated(command: string, commandOptions: CommandOptions): Promise<GroupRunResult> {
    if (this.disposed) throw new Error('the run has ended');
    const isolated = startSupervisor({ wrap: this.wrap, cwd: this.options.root, env: this.env, limits: this.limits });
    try {
      return await isolated.runCommand(command, commandOptions);
    } finally {
      await isolated.close();
    }
  }

  private current(): Supervisor {
    if (this.disposed) throw new Error('the run has ended');
    this.supervisor ??= this.spawnSupervisor();
    return this.supervisor;
  }

  private spawnSupervisor(): Supervisor {
    const maxBytes = this.options.maxLogBytes ?? MAX_LOG_BYTES;
    return startSupervisor({
      wrap: this.wrap,
      cwd: this.options.root,
      env: this.env,
      limits: this.limits,
      jobLogs: { maxBytes, cutNote: logCutNote(maxBytes) },
      onJobEnd: (tag, status) => {
        const id = [...this.jobTags].find(([, candidate]) => candidate === tag)?.[0];
        if (id === undefined) return;
        const job = this.store.get(id);
        // A job the agent or the run stopped already says so; otherwise it ended by itself.
        if (job?.state === 'running') this.ended(this.store.end(id, 'exited', status, null));
      },
      onExit: (_detail, expected) => {
        for (const job of this.store.running())
          this.ended(
            this.store.end(job.id, expected ? 'stopped' : 'lost', null, expected ? 'the run ended' : 'the sandbox ended (a command killed its supervisor)'),
          );
        this.supervisor = null;
      },
    });
  }
}

function emptyOutput(): GroupRunResult['output'] {
  return { push() {}, totalChars: 0, finish: (prefix = '') => prefix };
}
