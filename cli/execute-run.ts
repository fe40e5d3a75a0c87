import { basename, relative } from 'node:path';
import { RunInterrupted } from '../lib/errors.js';
import type { TraceLine } from '../lib/trace-events.js';
import type { HarnessOutput } from '../machines/types.js';
import type { Rules } from '../rules/schema.js';
import { type RunHandle, type RunOptions, resumeRun, startRun } from '../run/start-run.js';
import type { OtlpSettings } from '../telemetry/otlp-settings.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import { startOtelExport } from './otel-export.js';
import { createStatusLine } from './status-line.js';

export interface Io {
  stdout: { write(text: string): boolean; isTTY?: boolean };
  stderr: { write(text: string): boolean; isTTY?: boolean; columns?: number };
}

export interface ExecuteOptions {
  /** `onTrace` and `inspect` here are called alongside the status line. */
  run: RunOptions;
  json: boolean;
  resume?: boolean;
  io: Io;
  /** Called once the run has started (the visualizer attaches here). */
  onStart?: (handle: RunHandle) => void | Promise<void>;
  /** Export the run as OpenTelemetry spans while it runs (`--otel`, OTEL_EXPORTER_OTLP_ENDPOINT). */
  otel?: OtlpSettings | null;
}

/**
 * Runs the harness with a status line, prints the outcome and returns the
 * exit code. `--json` prints one JSON line on stdout at the end.
 */
export async function executeRun(options: ExecuteOptions): Promise<number> {
  const { io, run } = options;
  let status = createStatusLine(io.stderr, run.rules);
  // Lines traced while the run is set up (a resume line) are shown after the start message, not above it.
  let early: TraceLine[] | null = [];
  const onTrace = (line: TraceLine) => {
    if (early) early.push(line);
    else status.onTrace(line);
    run.onTrace?.(line);
  };
  // The exporter only ever sees trace lines; its failures are a warning, never the run's.
  const otel = options.otel ? startOtelExport(options.otel, { runId: basename(run.runDir), model: run.model.name, endpoint: run.model.description }, io) : null;
  let handle: RunHandle;
  try {
    handle = (options.resume ? resumeRun : startRun)({ ...run, onTrace, ...(otel ? { onTraceLine: otel.line } : {}) });
  } catch (error) {
    await otel?.finish();
    throw error;
  }
  if (handle.sandbox.includes('unsandboxed')) status = createStatusLine(io.stderr, run.rules, { unsandboxed: true });
  io.stderr.write(startMessage(run, handle, Boolean(options.resume)));
  if (otel) io.stderr.write(otel.startNote);
  for (const line of early) status.onTrace(line);
  early = null;
  await options.onStart?.(handle);
  // Ctrl+C (or a SIGTERM from a supervisor) stops the run cleanly: in-flight calls and their process
  // groups are aborted, the state of the last step stays saved.
  let stoppedBy = 'SIGINT' as NodeJS.Signals;
  const onSigint = (signal: NodeJS.Signals) => {
    stoppedBy = signal;
    handle.interrupt();
  };
  process.once('SIGINT', onSigint);
  process.once('SIGTERM', onSigint);
  let output: HarnessOutput;
  try {
    output = await handle.done;
  } catch (error) {
    if (!(error instanceof RunInterrupted)) throw error;
    status.finish();
    io.stderr.write(`rein: ${error.message}\n`);
    // As a shell reports a process ended by the signal: 128 + 2 for Ctrl+C, 128 + 15 for SIGTERM.
    return stoppedBy === 'SIGTERM' ? EXIT.terminated : EXIT.interrupted;
  } finally {
    process.removeListener('SIGINT', onSigint);
    process.removeListener('SIGTERM', onSigint);
    status.finish();
    await otel?.finish();
  }
  io.stderr.write(endMessage(output, handle, run.rules));
  const tampered = handle.tamperedRulesFiles();
  if (tampered.length > 0) {
    io.stderr.write(
      `rein: WARNING: the run changed ${tampered.join(', ')} in the workspace. rein will not load it until you have reviewed it and run \`rein rules trust\` in that repo (a .ts/.mjs/.js rules file is code).\n`,
    );
  }
  if (options.json) {
    io.stdout.write(
      JSON.stringify({
        status: output.status,
        steps: output.steps,
        summary: output.summary,
        usage: output.usage,
        reason: output.reason,
        trace: handle.tracePath,
        runDir: handle.runDir,
        // Unsandboxed, commands could read the whole disk: a script reading this line should not have to parse the start message.
        sandbox: { mode: handle.sandboxMode, wholeDiskReadable: handle.sandboxMode !== 'bwrap', description: handle.sandbox },
      }) + '\n',
    );
  }
  return exitCodeFor(output.status);
}

function startMessage(run: ExecuteOptions['run'], handle: RunHandle, resumed: boolean): string {
  return [
    `rein: ${resumed ? 'resuming' : 'running'} ${run.model.name} (${run.model.description}) on ${run.workspace}`,
    `rein: verification command: ${run.testCmd}`,
    ...(run.rulesSources ? [`rein: rules: ${run.rulesSources.map(shortPath).join(' + ')} + defaults`] : []),
    `rein: ${handle.sandbox}`,
    `rein: trace: ${shortPath(handle.tracePath)}`,
    '',
  ].join('\n');
}

function endMessage(output: HarnessOutput, handle: RunHandle, rules: Rules): string {
  const usage = output.usage;
  const cost = usage.costUsd > 0 ? `, est. $${usage.costUsd.toFixed(4)}` : '';
  const lines = [
    `rein: ${output.status} after ${output.steps}/${rules.budgets.maxSteps} steps; ${usage.promptTokens} prompt tokens (${usage.cachedTokens} cached), ${usage.completionTokens} completion tokens${cost}`,
  ];
  if (output.summary) lines.push(`rein: summary: ${output.summary}`);
  if (output.status !== 'done' && output.reason) lines.push(`rein: reason: ${output.reason}`);
  lines.push(`rein: trace: ${shortPath(handle.tracePath)}   (view it: npx rein viz ${shortPath(handle.tracePath)})`);
  if (output.status !== 'done') lines.push(`rein: run directory: ${shortPath(handle.runDir)}`);
  return lines.join('\n') + '\n';
}

function shortPath(path: string): string {
  const relativePath = relative(process.cwd(), path);
  return relativePath.startsWith('..') || relativePath === '' ? path : relativePath;
}
