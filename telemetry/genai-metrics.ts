import type { Attributes, Meter } from '@opentelemetry/api';
import { DURATION_BUCKETS, GEN_AI, GENERAL, METRIC, TOKEN_TYPE, TOKEN_USAGE_BUCKETS } from './conventions.js';

/** One model call, as the GenAI client metrics record it. */
export interface ModelCallMeasure {
  /** The call's attributes: operation, provider, request and response model, server. */
  attributes: Attributes;
  inputTokens?: number;
  outputTokens?: number;
  seconds?: number;
  /** Set for a call that failed or was cut short. */
  errorType?: string;
}

export interface GenAiMetrics {
  record(call: ModelCallMeasure): void;
}

/**
 * The two GenAI client metrics of the pinned conventions:
 * `gen_ai.client.token.usage` (histogram of `{token}`, one point per token
 * type a call reports) and `gen_ai.client.operation.duration` (seconds), with
 * the conventions' advisory bucket boundaries.
 *
 * @example const metrics = createGenAiMetrics(meterProvider.getMeter('rein')); metrics.record({ attributes, inputTokens: 1200, outputTokens: 80, seconds: 2.4 });
 */
export function createGenAiMetrics(meter: Meter): GenAiMetrics {
  const tokens = meter.createHistogram(METRIC.tokenUsage, {
    unit: '{token}',
    description: 'Number of input and output tokens used.',
    advice: { explicitBucketBoundaries: TOKEN_USAGE_BUCKETS },
  });
  const duration = meter.createHistogram(METRIC.operationDuration, {
    unit: 's',
    description: 'GenAI operation duration.',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  return {
    record(call) {
      if (call.inputTokens !== undefined) tokens.record(call.inputTokens, { ...call.attributes, [GEN_AI.tokenType]: TOKEN_TYPE.input });
      if (call.outputTokens !== undefined) tokens.record(call.outputTokens, { ...call.attributes, [GEN_AI.tokenType]: TOKEN_TYPE.output });
      if (call.seconds !== undefined && call.seconds >= 0)
        duration.record(call.seconds, call.errorType ? { ...call.attributes, [GENERAL.errorType]: call.errorType } : call.attributes);
    },
  };
}
