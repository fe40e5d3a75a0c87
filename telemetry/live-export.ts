import { Worker } from 'node:worker_threads';
import type { WorkerInput, WorkerMessage } from './export-worker.js';
import { displayUrl, type OtlpSettings } from './otlp-settings.js';
import type { RunFacts } from './run-attributes.js';

/** How long the end of a run waits for the last spans to reach the collector. */
export const FLUSH_TIMEOUT_MS = 3000;

export interface LiveExport {
  /** One trace line as the trace file got it (redacted JSON text). */
  line(text: string): void;
  /** Sends what is left, waiting at most `FLUSH_TIMEOUT_MS`; never throws. */
  finish(): Promise<void>;
}

export interface LiveExportOptions {
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
  let alive = true;
  let finished: ((message: Extract<WorkerMessage, { type: 'finished' }> | 'stopped') => void) | null = null;
  // No inherited Node flags: the worker runs compiled JavaScript, whatever the process was started with (--input-type, --inspect…).
  const worker = new Worker(new URL('./export-worker.js', import.meta.url), { workerData: { settings, facts: options.facts } satisfies WorkerInput, execArgv: [] });
  worker.unref();
  worker.on('message', (message: WorkerMessage) => {
    if (message.type === 'failure') warnOnce(`could not send spans to ${target} (${message.error}); the run goes on without them`);
    else finished?.(message);
  });
  worker.on('error', (error) => { alive = false; warnOnce(`the span export stopped (${error.message}); the run goes on without it`); finished?.('stopped'); });
  worker.on('exit', () => { alive = false; finished?.('stopped'); });

  return {
    line(text) {
      if (alive) worker.postMessage({ type: 'line', text });
    },
    async finish() {
      if (!alive) return;
      const timeoutMs = options.flushTimeoutMs ?? FLUSH_TIMEOUT_MS;
      let timer: NodeJS.Timeout | undefined;
      const outcome = await new Promise<Extract<WorkerMessage, { type: 'finished' }> | 'stopped' | null>((resolve) => {
        finished = resolve;
        timer = setTimeout(() => resolve(null), timeoutMs);
        worker.postMessage({ type: 'finish' });
      });
      clearTimeout(timer);
      finished = null;
      if (outcome === 'stopped') warnOnce('the span export stopped before the run ended; spans are lost (the run is not affected)');
      else if (outcome === null) warnOnce(`${target} did not take the last spans within ${timeoutMs / 1000} s; they are dropped (the run is not affected)`);
      else if (outcome.exported < outcome.ended) warnOnce(`${outcome.ended - outcome.exported} of ${outcome.ended} spans did not reach ${target}`);
      alive = false;
      await worker.terminate().catch(() => undefined);
    },
  };
}
