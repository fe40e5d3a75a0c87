import { parentPort, workerData } from 'node:worker_threads';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createMetricsExport } from './metrics-export.js';
import { createOtlpExporter } from './otlp-exporter.js';
import type { OtlpSettings } from './otlp-settings.js';
import type { RunFacts } from './run-attributes.js';
import { createSpanMapper } from './span-mapper.js';
import { createTracing } from './tracing.js';

/** What the live export's worker is started with. */
export interface WorkerInput {
  settings: OtlpSettings;
  facts: RunFacts;
}

/** Messages from the worker: its first failure; every line mapped (the spans are then the collector's to take); the tally once flushed. */
export type WorkerMessage =
  | { type: 'failure'; error: string; signal?: 'metrics' }
  | { type: 'mapped' }
  | { type: 'finished'; ended: number; exported: number; failed: number };

/** A bounded queue (spans beyond it are dropped, not held) and batches of up to 512 spans a request. */
const QUEUE = { maxQueueSize: 2048, maxExportBatchSize: 512, scheduledDelayMillis: 1000 };

// The worker thread of the live export (telemetry/live-export.ts): the mapping, the batching and the HTTP
// requests all happen here, so a slow collector never holds the run's thread or its exit.
const port = parentPort!;
const { settings, facts } = workerData as WorkerInput;
const { exporter, tally } = createOtlpExporter(settings, (error) => port.postMessage({ type: 'failure', error } satisfies WorkerMessage));
let ended = 0;
const counter: SpanProcessor = {
  onStart: () => undefined,
  onEnd: () => {
    ended++;
  },
  forceFlush: async () => undefined,
  shutdown: async () => undefined,
};
const batches = new BatchSpanProcessor(exporter, { ...QUEUE, exportTimeoutMillis: settings.timeoutMs + 1000 });
const { provider, tracer } = createTracing(settings, [counter, batches]);
const metricsExport = createMetricsExport(settings, (error) => port.postMessage({ type: 'failure', error, signal: 'metrics' } satisfies WorkerMessage));
const mapper = createSpanMapper(tracer, { content: settings.content, facts, ...(metricsExport ? { metrics: metricsExport.metrics } : {}) });
let mappingFailed = false;

function mapLine(text: string): void {
  try {
    mapper.line(JSON.parse(text));
  } catch (error) {
    if (!mappingFailed) port.postMessage({ type: 'failure', error: `a trace line could not be mapped: ${(error as Error).message}` } satisfies WorkerMessage);
    mappingFailed = true;
  }
}

port.on('message', (message: { type: 'lines'; texts: string[] } | { type: 'finish' }) => {
  if (message.type === 'lines') {
    for (const text of message.texts) mapLine(text);
    return;
  }
  mapper.close();
  port.postMessage({ type: 'mapped' } satisfies WorkerMessage);
  void Promise.all([provider.forceFlush().catch(() => undefined), metricsExport?.finish()])
    .catch(() => undefined)
    .then(() => {
      port.postMessage({ type: 'finished', ended, exported: tally.exported, failed: tally.failed } satisfies WorkerMessage);
    });
});
