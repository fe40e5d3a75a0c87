import { join } from 'node:path';
import { UsageError } from 'rein/lib';
import type { Price } from 'rein/rules';
import type { ResolvedConfiguration } from './configurations.js';
import type { EvalJob, JobModel } from './job.js';
import { choosePrice } from './prices.js';
import { type RunRecord, runKey } from './run-record.js';
import { simulatedModelName } from './simulated/model-source.js';
import type { EvalTask } from './task.js';

interface PlanOptions {
  endpoint?: { model: string; baseURL?: string };
  repeat: number;
  prices?: Record<string, Price>;
  keepWorkspaces?: boolean;
  atif?: boolean;
}

/**
 * Every (task, configuration, repeat) as a job, repeats outermost so an
 * interrupted eval has whole rounds; each job knows its model name, price
 * and run directory under `<out>/runs/`.
 */
export function planJobs(tasks: readonly EvalTask[], configs: readonly ResolvedConfiguration[], options: PlanOptions, outDir: string): EvalJob[] {
  const jobs: EvalJob[] = [];
  const model: JobModel = options.endpoint ? { kind: 'endpoint', ...options.endpoint } : { kind: 'simulated' };
  for (let repeat = 0; repeat < options.repeat; repeat++) {
    for (const task of tasks) {
      for (const config of configs) {
        const modelName = options.endpoint ? options.endpoint.model : simulatedModelName(task.simulated!);
        const { price, source } = choosePrice(config.rules, modelName, options.prices ?? {}, !options.endpoint);
        jobs.push({
          task,
          config: { label: config.label, preset: config.preset, ...(config.configPath ? { configPath: config.configPath } : {}) },
          configHash: config.hash,
          repeat,
          model,
          modelName,
          price,
          priceSource: source,
          runDir: join(outDir, 'runs', safeName(task.id), safeName(config.label), `r${repeat}`),
          outDir,
          keepWorkspace: options.keepWorkspaces ?? false,
          ...(options.atif ? { atif: true } : {}),
        });
      }
    }
  }
  return jobs;
}

/** The results-file identity of a job. */
export function jobKey(job: EvalJob): string {
  return runKey({ task: job.task.id, config: job.config.label, repeat: job.repeat });
}

/** Resuming into an output dir made with other rules or another model would mix results: refuse. */
export function checkCompatible(previous: readonly RunRecord[], jobs: readonly EvalJob[]): void {
  const byKey = new Map(jobs.map((job) => [jobKey(job), job]));
  for (const record of previous) {
    const job = byKey.get(runKey(record));
    if (!job) continue;
    if (record.configHash && record.configHash !== job.configHash) {
      throw new UsageError(
        `the output dir already has runs of configuration "${record.config}" made with different rules; use another --out (or delete its results.jsonl)`,
      );
    }
    if (record.model && record.model !== job.modelName) {
      throw new UsageError(`the output dir already has runs of "${record.task}" with model ${record.model}, not ${job.modelName}; use another --out`);
    }
  }
}

function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]/g, '_');
}
