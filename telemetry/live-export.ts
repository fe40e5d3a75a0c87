import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { WorkerInput, WorkerMessage } from './export-worker.js';
import { displayUrl, type OtlpSettings } from './otlp-settings.js';
import type { RunFacts } from './run-attributes.js';

/** How long the end of a run waits for the collector to take the last spans. */
export const FLUSH_TIMEOUT_MS = 3000;
/**
 * How long it waits, before that, for the worker to map the lines it was sent: local work, done
 * long before the run ends unless the machine is starved; the cap only guards against a stuck worker.
 */
const MAPPING_TIMEOUT_MS = 30_000;

export interface LiveExport {
  /** One trace line as the trace file got it (redacted JSON text). */
  line(text: string): void;
  /** Sends what is left, waiting at most `FLUSH_TIMEOUT_MS`; never throws. */
  finish(): Promise<void>;
}

interface LiveExportOptions {
  /** A resumed run's trace has no start line in this process: its run id, model and endpoint. */
  facts: RunFacts;
  /** Prints one line; called at most once per run. */
  warn(text: string): void;
  flushTimeoutMs?: number;
}

/**
 * Exports a run's trace lines as OTLP spans while it runs. The mapping,
 * batching and HTTP requests run in a worker thread that does not keep the
 * process alive, so an unreachable or slow collector costs the run nothing
 * but the bounded wait at its end, and a warning.
 *
 * @example const otel = startLiveExport(settings, { facts: { runId }, warn }); startRun({ ..., onTraceLine: otel.line }); await otel.finish();
 */
export function startLiveExport(settings: OtlpSettings, options: LiveExportOptions): LiveExport {
  const target = displayUrl(settings.url);
  let warned = false;
  const warnOnce = (text: string) => {
    if (warned) return;
    warned = true;
    options.warn(`rein: OpenTelemetry: ${text}`);
  };
  // A collector that takes spans but not metrics (Jaeger's OTLP port) is said once, apart from the spans.
  let metricsWarned = false;
  let alive = true;
  let finished: ((message: Exclude<WorkerMessage, { type: 'failure' }> | 'stopped') => void) | null = null;
  // Messages can arrive together (several in one turn of the event loop): each is kept until awaited.
  const received = new Map<string, WorkerMessage>();
  // No inherited Node flags: the worker runs compiled JavaScript, whatever the process was started with (--input-type, --inspect…).
  // The compiled worker by the package's name: this module also runs from source (tests) and bundled into the rein command.
  const worker = new Worker(createRequire(import.meta.url).resolve('rein-telemetry/export-worker.js'), {
    workerData: { settings, facts: options.facts } satisfies WorkerInput,
    execArgv: [],
  });
  worker.unref();
  worker.on('message', (message: WorkerMessage) => {
    if (message.type === 'failure' && message.signal === 'metrics') {
      if (!metricsWarned && settings.metricsUrl)
        options.warn(
          `rein: OpenTelemetry: could not send the GenAI metrics to ${displayUrl(settings.metricsUrl)} (${message.error}); OTEL_METRICS_EXPORTER=none sends spans only`,
        );
      metricsWarned = true;
    } else if (message.type === 'failure') warnOnce(`could not send spans to ${target} (${message.error}); the run goes on without them`);
    else {
      received.set(message.type, message);
      finished?.(message);
    }
  });
  worker.on('error', (error) => {
    alive = false;
    warnOnce(`the span export stopped (${error.message}); the run goes on without it`);
    finished?.('stopped');
  });
  worker.on('exit', () => {
    alive = false;
    finished?.('stopped');
  });

  /** The worker's next message of this type, 'stopped' if it died, null after `timeoutMs`. */
  function next<T extends 'mapped' | 'finished'>(type: T, timeoutMs: number, send?: () => void) {
    return new Promise<Extract<WorkerMessage, { type: T }> | 'stopped' | null>((resolve) => {
      send?.();
      const early = received.get(type);
      if (early) {
        resolve(early as Extract<WorkerMessage, { type: T }>);
        return;
      }
      if (!alive) {
        resolve('stopped');
        return;
      }
      const timer = setTimeout(() => {
        finished = null;
        resolve(null);
      }, timeoutMs);
      finished = (message) => {
        if (message !== 'stopped' && message.type !== type) return;
        clearTimeout(timer);
        finished = null;
        resolve(message as Extract<WorkerMessage, { type: T }> | 'stopped');
      };
    });
  }

  // Lines written in one synchronous burst (a machine step writes several) cross to the worker in one message.
  let batch: string[] = [];
  const post = () => {
    if (alive && batch.length > 0) worker.postMessage({ type: 'lines', texts: batch });
    batch = [];
  };

  return {
    line(text) {
      if (!alive) return;
      if (batch.length === 0) queueMicrotask(post);
      batch.push(text);
    },
    async finish() {
      post();
      if (!alive) return;
      const timeoutMs = options.flushTimeoutMs ?? FLUSH_TIMEOUT_MS;
      const mapped = await next('mapped', MAPPING_TIMEOUT_MS, () => worker.postMessage({ type: 'finish' }));
      const outcome = mapped !== null && mapped !== 'stopped' ? await next('finished', timeoutMs) : mapped;
      if (outcome === 'stopped') {
        warnOnce('the span export stopped before the run ended; spans are lost (the run is not affected)');
      } else if (outcome === null) {
        const waited = mapped === null ? MAPPING_TIMEOUT_MS : timeoutMs;
        warnOnce(
          `${mapped === null ? 'the span export' : target} did not finish within ${waited / 1000} s; the last spans are dropped (the run is not affected)`,
        );
      } else if (outcome.type === 'finished' && outcome.exported < outcome.ended) {
        warnOnce(`${outcome.ended - outcome.exported} of ${outcome.ended} spans did not reach ${target}`);
      }
      alive = false;
      await worker.terminate().catch(() => undefined);
    },
  };
}
