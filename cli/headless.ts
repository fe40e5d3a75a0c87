import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { EndCause, Usage } from 'rein/formats';
import { ModelEndpointError, ReinError, UsageError } from 'rein/lib';
import { writeFileAtomic } from 'rein/tools';
import { type FlagSpec, type ParsedCommand, stringFlag } from './args.js';
import { EXIT } from './exit-codes.js';

/**
 * The unattended contract, for tools that run rein (Harbor, CI, an eval
 * queue): `--json-events` streams every trace line on stdout as it is
 * written, `--summary FILE` is written atomically whatever the outcome, and
 * `--atif FILE` writes the run's ATIF trajectory when it ends (killed by
 * SIGTERM included). Exit codes are `EXIT`'s.
 */
export interface HeadlessOptions {
  jsonEvents: boolean;
  summaryPath?: string;
  atifPath?: string;
}

export const HEADLESS_FLAGS: FlagSpec = {
  'json-events': { type: 'boolean' },
  summary: { type: 'string' },
  atif: { type: 'string' },
};

export const HEADLESS_USAGE = `  --json-events          stream every trace event on stdout, one JSON line each, as it happens
  --summary FILE         write the outcome as JSON to FILE (atomically; also on SIGTERM, endpoint failure or crash)
  --atif FILE            write the run's ATIF-v1.7 trajectory to FILE when it ends (also when stopped)`;

export function headlessOptions(parsed: ParsedCommand): HeadlessOptions {
  const summary = stringFlag(parsed, 'summary');
  const atif = stringFlag(parsed, 'atif');
  return {
    jsonEvents: parsed.values['json-events'] === true,
    ...(summary ? { summaryPath: resolve(summary) } : {}),
    ...(atif ? { atifPath: resolve(atif) } : {}),
  };
}

/** The summary file's content: `status` is a run's end status or how rein stopped short of one. */
interface RunSummary {
  status: string;
  exitCode: number;
  steps?: number;
  summary?: string;
  reason?: string;
  /** Who ended the run, when an exit rule, the endpoint or the harness did (`failed` by a rule exits 6, not 3). */
  endedBy?: EndCause;
  usage?: Usage;
  /** With delegated children: the usage split by agent. */
  agents?: Array<{ agent: string; runs: number; steps: number; usage: Usage }>;
  trace?: string;
  runDir?: string;
  atif?: string;
  error?: string;
}

/** Writes the summary file, if asked for, atomically: a reader sees the whole file or none. */
export function writeSummary(options: HeadlessOptions | undefined, summary: RunSummary): void {
  if (!options?.summaryPath) return;
  mkdirSync(dirname(options.summaryPath), { recursive: true });
  writeFileAtomic(options.summaryPath, `${JSON.stringify(summary, null, 2)}\n`);
}

/**
 * Writes the ATIF trajectory, if asked for; a failure is a warning and the summary says no file was written. The
 * exporter is loaded only then: a run without `--atif` never loads it.
 */
export async function writeAtif(options: HeadlessOptions | undefined, runDir: string, warn: (text: string) => void): Promise<string | undefined> {
  if (!options?.atifPath) return undefined;
  try {
    const { exportRunAsAtif, writeTrajectory } = await import('rein-telemetry/atif/export-run.js');
    mkdirSync(dirname(options.atifPath), { recursive: true });
    writeTrajectory(options.atifPath, exportRunAsAtif(runDir));
    return options.atifPath;
  } catch (error) {
    warn(`rein: could not write the ATIF trajectory to ${options.atifPath}: ${(error as Error).message}\n`);
    return undefined;
  }
}

/** The summary for an error thrown before or instead of an outcome, with the exit code `main` gives it. */
export function errorSummary(error: unknown): RunSummary {
  const exitCode = error instanceof UsageError ? EXIT.usage : error instanceof ModelEndpointError ? EXIT.endpoint : EXIT.crashed;
  const status = exitCode === EXIT.usage ? 'usage' : exitCode === EXIT.endpoint ? 'endpoint' : error instanceof ReinError ? 'error' : 'crashed';
  return { status, exitCode, error: error instanceof Error ? error.message : String(error) };
}
