import type { Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { AGENT_NAME, SCHEMA_URL } from './conventions.js';
import { createResource, reinVersion } from './otlp-exporter.js';
import type { OtlpSettings } from './otlp-settings.js';

/**
 * A tracer provider of its own (never registered globally: rein sets no
 * process-wide OpenTelemetry state) and rein's tracer from it.
 *
 * @example const { provider, tracer } = createTracing(settings, [new SimpleSpanProcessor(exporter)]);
 */
export function createTracing(settings: OtlpSettings, spanProcessors: SpanProcessor[]): { provider: BasicTracerProvider; tracer: Tracer } {
  const provider = new BasicTracerProvider({
    resource: createResource(settings),
    spanProcessors,
    // The run span carries a run's phase changes, gate decisions and nudges: more than the SDK's default 128 events in a long run.
    spanLimits: { eventCountLimit: 8192 },
  });
  return { provider, tracer: provider.getTracer(AGENT_NAME, reinVersion(), { schemaUrl: SCHEMA_URL }) };
}
