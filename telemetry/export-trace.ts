import { readFileSync } from 'node:fs';
import { ExportResultCode } from '@opentelemetry/core';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { redactTraceLine } from 'rein/run';
import { readChildTrace } from './child-traces.js';
import { createMetricsExport } from './metrics-export.js';
import { createOtlpExporter } from './otlp-exporter.js';
import type { OtlpSettings } from './otlp-settings.js';
import type { RunFacts } from './run-attributes.js';
import { createSpanMapper } from './span-mapper.js';
import { parseTrace } from './trace-text.js';
import { createTracing } from './tracing.js';

const BATCH = 512;

interface TraceExport {
  lines: number;
  spans: number;
  /** Spans the collector took. */
  exported: number;
  /** Lines that are not JSON (a cut last line, damage): skipped, with their line numbers. */
  skipped: number[];
  /** Why the collector did not take the rest, when it did not. */
  error?: string;
  /** Why the collector did not take the metrics, when it did not. */
  metricsError?: string;
}

/**
 * Sends a finished (or killed) run's trace as the spans the live export
 * would have sent, with the original timestamps. Contents pass through the
 * trace's redaction again, with today's secrets, before anything is mapped.
 *
 * @example const result = await exportTraceFile('run/trace.jsonl', settings, { secrets: [process.env.OPENAI_API_KEY], facts: { runId: 'run-1' } });
 */
export async function exportTraceFile(
  path: string,
  settings: OtlpSettings,
  options: { secrets: (string | undefined)[]; facts: RunFacts },
): Promise<TraceExport> {
  const { lines, skipped } = parseTrace(redactTraceLine(readFileSync(path, 'utf8'), options.secrets));
  const collected = new InMemorySpanExporter();
  const { provider, tracer } = createTracing(settings, [new SimpleSpanProcessor(collected)]);
  const metricsExport = createMetricsExport(settings);
  const mapper = createSpanMapper(tracer, {
    content: settings.content,
    facts: options.facts,
    // A delegated child's trace passes through the same redaction as its parent's.
    childLines: (runDir, link) => readChildTrace(runDir, link, (text) => redactTraceLine(text, options.secrets)),
    ...(metricsExport ? { metrics: metricsExport.metrics } : {}),
  });
  for (const line of lines) mapper.line(line);
  mapper.close();
  await provider.forceFlush();
  // The metrics' points carry the export's time: a histogram has no time of its own for each call.
  const metricsError = (await metricsExport?.finish())?.error;
  const spans = collected.getFinishedSpans();
  const { exporter, tally } = createOtlpExporter(settings);
  try {
    for (let start = 0; start < spans.length && tally.failed === 0; start += BATCH) await send(exporter, spans.slice(start, start + BATCH));
  } finally {
    await exporter.shutdown().catch(() => undefined);
    await provider.shutdown().catch(() => undefined);
  }
  return {
    lines: lines.length,
    spans: spans.length,
    exported: tally.exported,
    skipped,
    ...(tally.firstError ? { error: tally.firstError } : {}),
    ...(metricsError ? { metricsError } : {}),
  };
}

function send(exporter: SpanExporter, spans: ReadableSpan[]): Promise<boolean> {
  return new Promise((resolve) => exporter.export(spans, (result) => resolve(result.code === ExportResultCode.SUCCESS)));
}
