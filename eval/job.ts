import type { Price } from 'rein/rules';
import type { Configuration } from './configurations.js';
import type { PriceSource } from './prices.js';
import type { EvalTask } from './task.js';

/** Where a run's model comes from: the task's simulated model, or an OpenAI-compatible endpoint. */
export type JobModel = { kind: 'simulated' } | { kind: 'endpoint'; model: string; baseURL?: string };

/** One (task, configuration, repeat), as sent to a worker process. Plain JSON. */
export interface EvalJob {
  task: EvalTask;
  config: Configuration;
  configHash: string;
  repeat: number;
  model: JobModel;
  /** Model name for traces and the price table. */
  modelName: string;
  price: Price | null;
  priceSource: PriceSource;
  /** Absolute: the run's trace, record and saved state go here. */
  runDir: string;
  /** `tracePath` in the record is written relative to this. */
  outDir: string;
  keepWorkspace: boolean;
  /** Write the run's ATIF trajectory beside its trace (`--atif`). */
  atif?: boolean;
  /**
   * Where the task's own code runs. `host` (a local eval: the task set you chose): `setup_cmd` outside the sandbox,
   * a `./file.mjs` simulated model imported. `contained` (a queue job on a worker not told to trust its queue):
   * `setup_cmd` in the sandbox (network on, for installs), a simulated model module refused. Absent: `host`.
   */
  taskCode?: 'host' | 'contained';
}

/** Messages a worker sends its parent. */
export type WorkerMessage =
  | { type: 'phase'; phase: 'setup' | 'agent' | 'check'; seconds: number; workspace: string }
  | { type: 'result'; record: import('./run-record.js').RunRecord };
