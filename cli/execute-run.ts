import { basename, join, relative } from 'node:path';
import type { TraceLine } from 'rein/formats';
import { indentedLines, RunAwaitingApproval, RunInterrupted } from 'rein/lib';
import { formatInertRules, type HarnessOutput, inertRules } from 'rein/machines';
import type { Rules } from 'rein/rules';
import { type RunHandle, type RunOptions, resumeRun, startRun, tamperWarning } from 'rein/run';
import type { OtlpSettings } from 'rein-telemetry/otlp-settings.js';
import { sessionIdOfTrace } from 'rein-telemetry/session-id.js';
import { terminalSource } from './approval-prompt.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import { errorSummary, type HeadlessOptions, writeAtif, writeSummary } from './headless.js';
import { createStatusLine } from './status-line.js';

export interface Io {
  stdout: { write(text: string): boolean; isTTY?: boolean };
  stderr: { write(text: string): boolean; isTTY?: boolean; columns?: number };
}

interface ExecuteOptions {
  /** `onTrace` and `inspect` here are called alongside the status line. */
  run: RunOptions;
  json: boolean;
  resume?: boolean;
  io: Io;
  /** Called once the run has started (the visualizer attaches here). */
  onStart?: (handle: RunHandle) => void | Promise<void>;
  /** Export the run as OpenTelemetry spans while it runs (`--otel`, OTEL_EXPORTER_OTLP_ENDPOINT). */
  otel?: OtlpSettings | null;
  /** rein's environment, where MCP servers' `${NAME}` values and tokens are read (default: the run's, else process.env). */
  env?: NodeJS.ProcessEnv;
  /** `--json-events`, `--summary`, `--atif`: the unattended contract (cli/headless.ts). */
  headless?: HeadlessOptions;
}

/**
 * Runs the harness with a status line, prints the outcome and returns the
 * exit code. `--json` prints one JSON line on stdout at the end.
 */
export async function executeRun(options: ExecuteOptions): Promise<number> {
  const watch = await watchRun(options);
  let handle: RunHandle;
  try {
    handle = await startHandle(options, watch);
  } catch (error) {
    await watch.otel?.finish();
    writeSummary(options.headless, errorSummary(error));
    throw error;
  }
  watch.started(handle);
  await options.onStart?.(handle);
  const ended = await untilEnded(handle);
  watch.status().finish();
  await watch.otel?.finish();
  if ('output' in ended) return await reportEnd(options, handle, ended.output);
  return await reportStop(options, handle, ended);
}

/** What follows the run's trace: the status line (lines traced while the run is set up wait for the start message), the OpenTelemetry export, the event stream. */
async function watchRun(options: ExecuteOptions) {
  const { io, run } = options;
  let status = createStatusLine(io.stderr, run.rules);
  let early: TraceLine[] | null = [];
  const onTrace = (line: TraceLine) => {
    if (early) early.push(line);
    else status.onTrace(line);
    run.onTrace?.(line);
  };
  // The exporter only ever sees trace lines; its failures are a warning, never the run's.
  // A resumed run's spans carry the conversation id of its start line, which is in the trace already, not in this process's lines.
  const conversationId = options.otel ? sessionIdOfTrace(run.tracePath ?? join(run.runDir, 'trace.jsonl')) : undefined;
  // The exporter (and its worker) is loaded only for a run that exports: most runs never need it.
  const otel = options.otel
    ? (await import('./otel-export.js')).startOtelExport(
        options.otel,
        { runId: basename(run.runDir), model: run.model.name, endpoint: run.model.description, ...(conversationId ? { conversationId } : {}) },
        io,
      )
    : null;
  // Events go to stdout as written to the trace (redacted), one line each, before the step's state is saved.
  const events = options.headless?.jsonEvents ? (text: string) => io.stdout.write(`${text}\n`) : null;
  const listeners = [otel?.line, events].filter((listener) => typeof listener === 'function');
  const onTraceLine =
    listeners.length > 0
      ? (text: string) => {
          for (const listener of listeners) listener(text);
        }
      : undefined;
  return {
    onTrace,
    onTraceLine,
    otel,
    status: () => status,
    started(handle: RunHandle) {
      if (handle.sandbox.includes('unsandboxed')) status = createStatusLine(io.stderr, run.rules, { unsandboxed: true });
      io.stderr.write(startMessage(run, handle, Boolean(options.resume)));
      // What the rules say that can never fire, once, where the user reads the start (rein rules check lists the notes too).
      for (const line of formatInertRules(inertRules(run.rules).filter((entry) => entry.level === 'warning'))) io.stderr.write(`rein: ${line}\n`);
      if (otel) io.stderr.write(otel.startNote);
      for (const line of early ?? []) status.onTrace(line);
      early = null;
    },
  };
}

function startHandle(options: ExecuteOptions, watch: Awaited<ReturnType<typeof watchRun>>): Promise<RunHandle> {
  const { io, run } = options;
  // On a terminal a person answers approvals at the prompt; elsewhere the run is headless (approvals.headless).
  const answerSources = [...(run.answerSources ?? []), ...(io.stderr.isTTY && process.stdin.isTTY ? [terminalSource(process.stdin, process.stderr)] : [])];
  return (options.resume ? resumeRun : startRun)({
    ...run,
    onTrace: watch.onTrace,
    answerSources,
    env: options.env ?? run.env ?? process.env,
    onNotice: (text) => io.stderr.write(`rein: ${text}\n`),
    ...(watch.onTraceLine ? { onTraceLine: watch.onTraceLine } : {}),
  });
}

/**
 * The run's end, or why it stopped. Ctrl+C (or a SIGTERM from a supervisor) stops the run cleanly: in-flight calls and
 * their process groups are aborted, the state of the last step stays saved.
 */
async function untilEnded(handle: RunHandle): Promise<{ output: HarnessOutput } | { error: unknown; stoppedBy: NodeJS.Signals }> {
  let stoppedBy = 'SIGINT' as NodeJS.Signals;
  const onSignal = (signal: NodeJS.Signals) => {
    stoppedBy = signal;
    handle.interrupt();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return { output: await handle.done };
  } catch (error) {
    return { error, stoppedBy };
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

/** A run that stopped before its end: parked for an approval, interrupted by a signal, or crashed (rethrown). */
async function reportStop(options: ExecuteOptions, handle: RunHandle, { error, stoppedBy }: { error: unknown; stoppedBy: NodeJS.Signals }): Promise<number> {
  const { io, headless } = options;
  const files = { trace: handle.tracePath, runDir: handle.runDir };
  const warn = (text: string) => io.stderr.write(text);
  if (error instanceof RunAwaitingApproval) {
    io.stderr.write(`rein: ${error.message}\n`);
    if (options.json)
      io.stdout.write(JSON.stringify({ status: 'awaiting_approval', exitCode: EXIT.awaitingApproval, runDir: handle.runDir, reason: error.message }) + '\n');
    writeSummary(headless, { status: 'awaiting_approval', exitCode: EXIT.awaitingApproval, reason: error.message, ...files });
    return EXIT.awaitingApproval;
  }
  if (!(error instanceof RunInterrupted)) {
    const atif = await writeAtif(headless, handle.runDir, warn);
    writeSummary(headless, { ...errorSummary(error), ...files, ...(atif ? { atif } : {}) });
    throw error;
  }
  io.stderr.write(`rein: ${indentedLines(error.message)}\n`);
  warnTampered(io, handle);
  // As a shell reports a process ended by the signal: 128 + 2 for Ctrl+C, 128 + 15 for SIGTERM.
  const exitCode = stoppedBy === 'SIGTERM' ? EXIT.terminated : EXIT.interrupted;
  const atif = await writeAtif(headless, handle.runDir, warn);
  writeSummary(headless, {
    status: stoppedBy === 'SIGTERM' ? 'terminated' : 'interrupted',
    exitCode,
    reason: error.message,
    ...files,
    ...(atif ? { atif } : {}),
  });
  // `--json` promises one JSON line at the end, also for a run stopped by a signal.
  if (options.json) io.stdout.write(`${JSON.stringify({ status: 'interrupted', exitCode, trace: handle.tracePath, runDir: handle.runDir })}\n`);
  return exitCode;
}

/** A run that reached an end state: the end message, the `--json` line, the summary and the ATIF file. */
async function reportEnd(options: ExecuteOptions, handle: RunHandle, output: HarnessOutput): Promise<number> {
  const { io, headless, run } = options;
  io.stderr.write(endMessage(output, handle, run.rules));
  warnTampered(io, handle);
  if (options.json) {
    io.stdout.write(
      JSON.stringify({
        status: output.status,
        steps: output.steps,
        summary: output.summary,
        usage: output.usage,
        // With delegated children: the usage split by agent (main first), adding up to usage.
        ...(output.agents ? { agents: output.agents } : {}),
        reason: output.reason,
        ...(output.endedBy ? { endedBy: output.endedBy } : {}),
        exitCode: exitCodeFor(output),
        trace: handle.tracePath,
        runDir: handle.runDir,
        // Unsandboxed, commands could read the whole disk: a script reading this line should not have to parse the start message.
        sandbox: { mode: handle.sandboxMode, wholeDiskReadable: handle.sandboxMode !== 'bwrap', description: handle.sandbox },
      }) + '\n',
    );
  }
  const exitCode = exitCodeFor(output);
  const atif = await writeAtif(headless, handle.runDir, (text) => io.stderr.write(text));
  const { status, steps, summary, reason, usage, endedBy, agents } = output;
  writeSummary(headless, {
    status,
    exitCode,
    ...(endedBy ? { endedBy } : {}),
    steps,
    summary,
    reason,
    usage,
    ...(agents ? { agents } : {}),
    trace: handle.tracePath,
    runDir: handle.runDir,
    ...(atif ? { atif } : {}),
  });
  return exitCode;
}

/** The rules files the run created or changed, which rein will not load until a person trusts them. */
function warnTampered(io: Io, handle: RunHandle): void {
  const tampered = handle.tamperedRulesFiles();
  if (tampered.length > 0) io.stderr.write(`rein: ${tamperWarning(tampered, handle.workspace)}\n`);
}

function startMessage(run: ExecuteOptions['run'], handle: RunHandle, resumed: boolean): string {
  return [
    `rein: ${resumed ? 'resuming' : 'running'} ${run.model.name} (${run.model.description}) on ${run.workspace}`,
    ...verificationLines(run.rules, run.testCmd),
    ...(run.rulesSources ? [`rein: rules: ${run.rulesSources.map(shortPath).join(' + ')} + defaults`] : []),
    `rein: ${handle.sandbox}`,
    `rein: trace: ${shortPath(handle.tracePath)}`,
    '',
  ].join('\n');
}

/** What the gate wants before it accepts finish: the test command and every check, each with what counts as a pass. */
function verificationLines(rules: Rules, testCmd: string): string[] {
  const { verification } = rules;
  const pass = (check: { passExitCode: number; passPattern?: string | undefined; runs: number }) =>
    `passes with exit ${check.passExitCode}${check.passPattern ? ` and output matching /${check.passPattern}/` : ''}${check.runs > 1 ? `, ${check.runs} times after the last edit` : ''}`;
  if (!verification.gate) return [`rein: verification command: ${testCmd} (the verification gate is off: finish ends the run)`];
  return [
    `rein: verification command: ${testCmd} (${pass(verification)})`,
    ...verification.checks.map((check) => `rein: verification check ${check.name}: ${check.command} (${pass(check)})`),
    ...(verification.when ? ['rein: the gate also wants verification.when (rein rules show prints it)'] : []),
  ];
}

function endMessage(output: HarnessOutput, handle: RunHandle, rules: Rules): string {
  const usage = output.usage;
  const cost = usage.costUsd > 0 ? `, est. $${usage.costUsd.toFixed(4)}` : '';
  // The step budget counts the agents' steps with the run's own: say so, or `5/40` hides that 7 of 40 are spent.
  const treeSteps = (output.agents ?? []).reduce((sum, agent) => sum + agent.steps, 0);
  const withAgents = treeSteps > output.steps ? ` (${treeSteps}/${rules.budgets.maxSteps} with its agents')` : '';
  const lines = [
    `rein: ${output.status}${output.endedBy === 'rule' ? ' (an exit rule ended the run)' : ''} after ${output.steps}/${rules.budgets.maxSteps} steps${withAgents}; ${usage.promptTokens} prompt tokens (${usage.cachedTokens} cached), ${usage.completionTokens} completion tokens${cost}`,
  ];
  for (const agent of output.agents ?? []) lines.push(`rein: ${agentLine(agent)}`);
  if (output.summary) lines.push(`rein: summary: ${indentedLines(output.summary)}`);
  if (output.status !== 'done' && output.reason) lines.push(`rein: reason: ${indentedLines(output.reason)}`);
  lines.push(`rein: trace: ${shortPath(handle.tracePath)}   (view it: npx rein viz ${shortPath(handle.tracePath)})`);
  if (output.status !== 'done') lines.push(`rein: run directory: ${shortPath(handle.runDir)}`);
  return lines.join('\n') + '\n';
}

/** One agent's share of the run: `explorer ×2: 7 steps, 12345 prompt + 678 completion tokens, $0.0123`. */
function agentLine(entry: NonNullable<HarnessOutput['agents']>[number]): string {
  const { usage } = entry;
  const runs = entry.agent === 'main' ? '' : ` ×${entry.runs}`;
  const cost = usage.costUsd > 0 ? `, $${usage.costUsd.toFixed(4)}` : '';
  return `  ${entry.agent}${runs}: ${entry.steps} steps, ${usage.promptTokens} prompt + ${usage.completionTokens} completion tokens${cost}`;
}

function shortPath(path: string): string {
  const relativePath = relative(process.cwd(), path);
  return relativePath.startsWith('..') || relativePath === '' ? path : relativePath;
}
