import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { UsageError } from 'rein/lib';
import { readRunMeta } from 'rein/run';
import { exportRunAsAtif, writeTrajectory } from 'rein-telemetry/atif/export-run.js';
import { exportTraceFile } from 'rein-telemetry/export-trace.js';
import { DEFAULT_TRACES_URL, displayUrl, resolveOtlpSettings } from 'rein-telemetry/otlp-settings.js';
import { type FlagSpec, parseCommand, stringFlag } from '../args.js';
import type { Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';

const TRACE_USAGE = `rein trace export <trace.jsonl | run-dir | dir> [--endpoint URL] [--content] [--json]
rein trace export <run-dir | trace.jsonl> --format atif [--out FILE]

Sends a run's trace (finished, killed or still going) to an OpenTelemetry
collector as the spans a live export (\`--otel\`) sends: \`invoke_agent rein\`
per run, \`chat {model}\` per model call, \`execute_tool {name}\` per tool call,
with the original timestamps; and the GenAI client metrics (token usage and
call duration) to the collector's /v1/metrics (OTEL_METRICS_EXPORTER=none: not). Given a directory that holds runs (an eval's
--out, a repo's .rein/runs), it sends every trace.jsonl found under it.

  --endpoint URL   the collector: a base URL (…:4318) or its traces URL; default
                   OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_ENDPOINT,
                   else ${DEFAULT_TRACES_URL}
  --content        include message contents, tool arguments and results (secrets
                   redacted as in the trace; or OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true)
  --json           print one JSON line with the counts

  --format atif    instead, write the run as one ATIF-v1.7 trajectory (Harbor's
                   Agent Trajectory Interchange Format) to stdout, or to --out FILE
                   (written atomically); works on finished, killed and resumed runs
  --format otel    the default: send spans as above

Exit codes: 0 sent or written, 1 the collector did not take the spans, 2 bad usage.`;

const TRACE_FLAGS: FlagSpec = {
  format: { type: 'string' },
  out: { type: 'string' },
  endpoint: { type: 'string' },
  content: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

export async function traceCommand(argv: string[], io: Io, env: NodeJS.ProcessEnv): Promise<number> {
  const parsed = parseCommand('rein trace', argv, TRACE_FLAGS);
  if (parsed.values.help) {
    io.stdout.write(TRACE_USAGE + '\n');
    return EXIT.done;
  }
  const [verb, file, ...extra] = parsed.positionals;
  if (verb !== 'export') throw new UsageError(`rein trace: ${verb ? `unknown subcommand "${verb}"` : 'expected a subcommand'}\n\n${TRACE_USAGE}`);
  if (!file) throw new UsageError(`rein trace export: expected <trace.jsonl | run-dir>\n\n${TRACE_USAGE}`);
  if (extra.length > 0) throw new UsageError(`rein trace export: unexpected argument "${extra[0]}"`);
  const format = stringFlag(parsed, 'format') ?? 'otel';
  if (format === 'atif') {
    const otelOnly = ['endpoint', 'content', 'json'].find((flag) => parsed.values[flag] !== undefined);
    if (otelOnly) throw new UsageError(`rein trace export: --${otelOnly} goes with --format otel (ATIF is written to stdout or --out)`);
    return exportAtif(file, stringFlag(parsed, 'out'), io);
  }
  if (format !== 'otel') throw new UsageError(`rein trace export: --format must be otel or atif, not "${format}"`);
  if (stringFlag(parsed, 'out')) throw new UsageError('rein trace export: --out goes with --format atif (spans go to --endpoint)');
  const paths = tracesIn(resolve(file), file);
  let settings: Awaited<ReturnType<typeof resolveOtlpSettings>>;
  try {
    settings = (await resolveOtlpSettings({
      url: stringFlag(parsed, 'endpoint'),
      flag: '--endpoint',
      content: parsed.values.content === true,
      env,
      fallbackUrl: DEFAULT_TRACES_URL,
    }))!;
  } catch (error) {
    throw error instanceof UsageError ? new UsageError(`rein trace export: ${error.message}`) : error;
  }
  for (const note of settings.notes) io.stderr.write(`rein trace export: ${note}\n`);
  const target = displayUrl(settings.url);
  const total = { traces: 0, lines: 0, spans: 0, exported: 0, skipped: 0 };
  let error: string | undefined;
  let metricsWarned = false;
  for (const path of paths) {
    const result = await exportTraceFile(path, settings, { secrets: [env.OPENAI_API_KEY], facts: { runId: basename(dirname(path)) } });
    const name = paths.length > 1 ? `${relative(process.cwd(), path) || path}: ` : '';
    if (result.skipped.length > 0)
      io.stderr.write(
        `rein trace export: ${name}skipped line${result.skipped.length > 1 ? 's' : ''} ${result.skipped.slice(0, 10).join(', ')} (not JSON: a cut last line or damage)\n`,
      );
    total.traces++;
    total.lines += result.lines;
    total.spans += result.spans;
    total.exported += result.exported;
    total.skipped += result.skipped.length;
    if (result.metricsError && !metricsWarned) {
      io.stderr.write(
        `rein trace export: the GenAI metrics did not reach ${displayUrl(settings.metricsUrl ?? '')} (${result.metricsError}); OTEL_METRICS_EXPORTER=none sends spans only\n`,
      );
      metricsWarned = true;
    }
    // A collector that refused one trace will refuse the next: stop at the first failure.
    if (result.error) {
      error = result.error;
      break;
    }
  }
  if (parsed.values.json) io.stdout.write(JSON.stringify({ endpoint: target, ...total, ...(error ? { error } : {}) }) + '\n');
  if (error) {
    io.stderr.write(
      `rein trace export: ${target} did not take the spans (${error}); ${total.exported} of ${total.spans} sent${paths.length > 1 ? `, ${paths.length - total.traces} traces not tried` : ''}\n`,
    );
    return EXIT.unfinished;
  }
  io.stderr.write(
    `rein trace export: sent ${total.spans} spans from ${total.lines} trace lines${paths.length > 1 ? ` of ${paths.length} traces` : ''} to ${target}\n`,
  );
  return EXIT.done;
}

function exportAtif(file: string, out: string | undefined, io: Io): number {
  let trajectory: ReturnType<typeof exportRunAsAtif>;
  try {
    trajectory = exportRunAsAtif(resolve(file));
  } catch (error) {
    throw error instanceof UsageError ? new UsageError(`rein trace export: ${error.message}`) : error;
  }
  if (!out) {
    io.stdout.write(`${JSON.stringify(trajectory, null, 2)}\n`);
    return EXIT.done;
  }
  writeTrajectory(resolve(out), trajectory);
  io.stderr.write(`rein trace export: wrote ${trajectory.steps.length} ATIF steps to ${out}\n`);
  return EXIT.done;
}

/**
 * The trace file itself; the trace of a run directory (`--trace` kept elsewhere is found
 * through run.json); or every run's trace under a directory of runs.
 */
function tracesIn(path: string, given: string): string[] {
  if (!existsSync(path)) throw new UsageError(`rein trace export: not found: ${given}`);
  if (statSync(path).isFile()) return [path];
  const own = runTrace(path);
  if (own) return [own];
  const found = findTraces(path, 6);
  if (found.length > 0) return found;
  throw new UsageError(`rein trace export: ${given} is a directory without a trace (expected a trace.jsonl file, a run directory or a directory of runs)`);
}

function runTrace(dir: string): string | null {
  if (existsSync(join(dir, 'run.json'))) {
    try {
      const { tracePath } = readRunMeta(dir);
      if (typeof tracePath === 'string' && existsSync(tracePath)) return tracePath;
    } catch {
      // a damaged run.json: the trace beside it may still be there
    }
  }
  const beside = join(dir, 'trace.jsonl');
  return existsSync(beside) && statSync(beside).isFile() ? beside : null;
}

function findTraces(dir: string, depth: number): string[] {
  if (depth === 0) return [];
  const own = runTrace(dir);
  if (own) return [own];
  const entries = readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory() && entry.name !== 'node_modules' && entry.name !== '.git');
  return entries.sort((a, b) => a.name.localeCompare(b.name)).flatMap((entry) => findTraces(join(dir, entry.name), depth - 1));
}
