import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from 'rein/lib';
import type { Price } from 'rein/rules';
import { createReplayWriter } from 'rein-visualizer/server/replay-files.js';
import { type Configuration, type ResolvedConfiguration, resolveConfiguration } from './configurations.js';
import { buildEvalView, type EvalView } from './eval-view.js';
import type { EvalJob } from './job.js';
import { describeModel, describePrices } from './notes.js';
import { checkCompatible, jobKey, planJobs } from './plan-jobs.js';
import { runPool } from './pool.js';
import { createProgress, type ProgressStream } from './progress.js';
import { renderReport } from './report-html.js';
import { openResultsWriter, RESULTS_FILE, readResults } from './results-file.js';
import { type RunRecord, runKey } from './run-record.js';
import { renderSummary } from './summary-md.js';
import { writePredictions } from './swebench/predictions.js';
import { isInstanceFile, loadSweBenchTasks } from './swebench/tasks.js';
import { type EvalTask, loadTaskSet } from './task.js';

interface EvalOptions {
  tasksDir: string;
  configurations: Configuration[];
  /** An OpenAI-compatible model; absent: each task's simulated model. */
  endpoint?: { model: string; baseURL?: string };
  repeat: number;
  parallel: number;
  outDir: string;
  /** Run only these task ids. */
  only?: string[];
  prices?: Record<string, Price>;
  keepWorkspaces?: boolean;
  workerPath?: string;
  env?: NodeJS.ProcessEnv;
  /** Where progress goes (stderr). */
  progress?: ProgressStream;
  /** Runs the pending jobs somewhere other than the local process pool (the job queue of `--queue`). */
  runner?: JobRunner;
  /** For a SWE-bench instance file: the directory of local clones or bare mirrors (`--repos`). */
  repos?: string;
  /** Write each run's ATIF trajectory beside its trace (`--atif`). */
  atif?: boolean;
}

/** Something that runs eval jobs and reports one record per job (the local pool, or the job queue). */
export interface JobRunner {
  run(jobs: readonly EvalJob[], report: { record(record: RunRecord, job: EvalJob): void; note(text: string): void }): Promise<void>;
  /** A few words for the progress line, such as the number of live workers. */
  status?(): string;
  /** Where an endpoint model is called from, for the report (default: the endpoint's URL). */
  endpointNote?: string;
}

interface EvalResult {
  outDir: string;
  view: EvalView;
  /** Runs made now, and runs kept from an earlier, interrupted eval in the same output dir. */
  ran: number;
  kept: number;
  files: { results: string; summary: string; report: string; predictions?: string[] };
}

/**
 * Runs every task under every configuration, `repeat` times, in worker
 * processes, appending one line per run to `<out>/results.jsonl`, then
 * writes `summary.md` and `report.html`. Runs already in the results file
 * are kept (resume); a results line made with different rules or another
 * model for the same (task, configuration, repeat) is a usage error.
 *
 * @example const result = await runEval({ tasksDir: 'eval/suite', configurations, repeat: 1, parallel: 2, outDir: 'eval-out' });
 */
export async function runEval(options: EvalOptions): Promise<EvalResult> {
  const outDir = resolve(options.outDir);
  const taskSet = isInstanceFile(options.tasksDir) ? loadSweBenchTasks(options.tasksDir, options.repos) : loadTaskSet(options.tasksDir);
  const problems = [...taskSet.problems];
  const tasks = selectTasks(taskSet.tasks, options, problems);
  const configs = await Promise.all(options.configurations.map(resolveConfiguration));
  const jobs = planJobs(tasks, configs, options, outDir);
  const resultsPath = join(outDir, RESULTS_FILE);
  const planned = new Set(jobs.map(jobKey));
  const previous = readResults(resultsPath).records.filter((record) => planned.has(runKey(record)));
  checkCompatible(previous, jobs);
  const finished = new Set(previous.map(runKey));
  const pending = jobs.filter((job) => !finished.has(jobKey(job)));
  mkdirSync(outDir, { recursive: true });
  writeManifest(outDir, options, configs);
  const replays = createReplayWriter();
  await runPending(pending, previous, jobs.length, configs, options, resultsPath, (record) => {
    if (record.tracePath) replays.add(join(outDir, record.tracePath));
  });
  // The reports cover everything this folder holds for these configurations, so a `--task` re-run does not shrink them.
  const labels = new Set(configs.map((config) => config.label));
  const records = latestPerKey(readResults(resultsPath).records.filter((record) => labels.has(record.config) && record.repeat < options.repeat));
  const view = buildEvalView({
    tasksDir: options.tasksDir,
    configs: configs.map((config) => config.label),
    records,
    repeat: options.repeat,
    problems,
    modelNote: describeModel(options.endpoint, options.runner?.endpointNote),
    priceNote: describePrices(records),
    taskNotes: Object.fromEntries(taskSet.tasks.map((task) => [task.id, options.endpoint ? '' : simulatedNote(task)])),
  });
  // Each run's replay page beside its trace (written as runs finish; kept runs' now): report.html links every cell to it.
  await replays.finish(records.filter((record) => record.tracePath).map((record) => join(outDir, record.tracePath)));
  const predictions = tasks.some((task) => task.swebench)
    ? {
        predictions: writePredictions(
          outDir,
          records,
          configs.map((config) => config.label),
          options.endpoint?.model ?? 'simulated',
        ),
      }
    : {};
  const files = { results: resultsPath, summary: join(outDir, 'summary.md'), report: join(outDir, 'report.html'), ...predictions };
  writeFileSync(files.summary, renderSummary(view));
  writeFileSync(files.report, renderReport(view));
  return { outDir, view, ran: pending.length, kept: previous.length, files };
}

function selectTasks(tasks: EvalTask[], options: EvalOptions, problems: Array<{ id: string; problem: string }>): EvalTask[] {
  const only = options.only && options.only.length > 0 ? new Set(options.only) : null;
  if (only) {
    const unknown = [...only].filter((id) => !tasks.some((task) => task.id === id) && !problems.some((entry) => entry.id === id));
    if (unknown.length > 0) throw new UsageError(`--task: no task named ${unknown.join(', ')} in ${options.tasksDir}`);
  }
  return tasks.filter((task) => {
    if (only && !only.has(task.id)) return false;
    if (options.endpoint || task.simulated) return true;
    problems.push({ id: task.id, problem: 'no simulated_model: pass --model to run it against a real model' });
    return false;
  });
}

async function runPending(
  pending: EvalJob[],
  previous: RunRecord[],
  total: number,
  configs: ResolvedConfiguration[],
  options: EvalOptions,
  resultsPath: string,
  recorded: (record: RunRecord) => void,
): Promise<void> {
  const writer = openResultsWriter(resultsPath);
  const status = options.runner?.status?.bind(options.runner);
  const progress = createProgress(options.progress ?? { write: () => true }, {
    total,
    configs: configs.map((config) => config.label),
    previous,
    ...(status ? { status } : {}),
  });
  const record = (record: RunRecord) => {
    writer.append(record);
    progress.finished(record);
    recorded(record);
  };
  try {
    if (options.runner) await options.runner.run(pending, { record, note: (text) => progress.note(text) });
    else {
      await runPool(pending, {
        parallel: options.parallel,
        ...(options.workerPath ? { workerPath: options.workerPath } : {}),
        ...(options.env ? { env: options.env } : {}),
        onRecord: record,
      });
    }
  } finally {
    writer.close();
    progress.close();
  }
}

function writeManifest(outDir: string, options: EvalOptions, configs: ResolvedConfiguration[]): void {
  writeFileSync(
    join(outDir, 'eval.json'),
    JSON.stringify(
      {
        version: 1,
        tasksDir: resolve(options.tasksDir),
        model: options.endpoint?.model ?? 'simulated',
        repeat: options.repeat,
        configurations: configs.map(({ label, preset, configPath, hash }) => ({ label, preset, ...(configPath ? { configPath } : {}), hash })),
        updatedAt: new Date().toISOString(),
      },
      null,
      2,
    ) + '\n',
  );
}

/** The last line per (task, configuration, repeat): a results file appended to by hand may repeat keys. */
function latestPerKey(records: RunRecord[]): RunRecord[] {
  return [...new Map(records.map((record) => [runKey(record), record])).values()];
}

function simulatedNote(task: EvalTask): string {
  if (!task.simulated) return '';
  return task.simulated.kind === 'registry' ? task.simulated.names.join(' + ') : task.simulated.path;
}
