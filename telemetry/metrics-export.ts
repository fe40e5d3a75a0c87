import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { AGENT_NAME, SCHEMA_URL } from './conventions.js';
import { createGenAiMetrics, type GenAiMetrics } from './genai-metrics.js';
import { createResource, reinVersion } from './otlp-exporter.js';
import type { OtlpSettings } from './otlp-settings.js';

/** How often a live run's metrics go out; the end of the run sends what is left. */
const EXPORT_INTERVAL_MS = 30_000;

interface MetricsExport {
  metrics: GenAiMetrics;
  /** Sends what was recorded and stops; the first failure, if any (never throws). */
  finish(): Promise<{ error?: string }>;
}

/**
 * The GenAI client metrics of a run (genai-metrics.ts), sent with the
 * OpenTelemetry metrics SDK and its official OTLP/HTTP exporter to
 * `settings.metricsUrl`, under the same resource and schema as the spans.
 * Null when metrics are turned off. A provider of its own, never registered
 * globally.
 *
 * @example const exported = createMetricsExport(settings); mapper = createSpanMapper(tracer, { metrics: exported?.metrics, … }); await exported?.finish();
 */
export function createMetricsExport(settings: OtlpSettings, onFirstFailure?: (error: string) => void): MetricsExport | null {
  if (!settings.metricsUrl) return null;
  const inner = new OTLPMetricExporter({ url: settings.metricsUrl, headers: settings.metricsHeaders, timeoutMillis: settings.timeoutMs });
  let firstError: string | undefined;
  // The SDK only logs a failed export to a diagnostic logger nobody registered: it is caught here to be said once.
  const exporter: PushMetricExporter = {
    export(metrics, done: (result: ExportResult) => void) {
      inner.export(metrics, (result) => {
        if (result.code !== ExportResultCode.SUCCESS && firstError === undefined) {
          firstError = result.error?.message || 'the collector did not accept the metrics';
          onFirstFailure?.(firstError);
        }
        done(result);
      });
    },
    forceFlush: () => inner.forceFlush(),
    shutdown: () => inner.shutdown(),
    selectAggregationTemporality: (type) => inner.selectAggregationTemporality(type),
  };
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: EXPORT_INTERVAL_MS, exportTimeoutMillis: settings.timeoutMs });
  const provider = new MeterProvider({ resource: createResource(settings), readers: [reader] });
  const metrics = createGenAiMetrics(provider.getMeter(AGENT_NAME, reinVersion(), { schemaUrl: SCHEMA_URL }));
  return {
    metrics,
    async finish() {
      // Shutting down collects and sends once more: what was recorded since the last export.
      await provider.shutdown().catch(() => undefined);
      return firstError ? { error: firstError } : {};
    },
  };
}
