import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { type Resource, resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { GENERAL, SCHEMA_URL } from './conventions.js';
import type { OtlpSettings } from './otlp-settings.js';

let version: string | undefined;

/** rein's version, for `service.version` and the instrumentation scope. */
export function reinVersion(): string {
  // By the package's name, not a path: this module also runs bundled into the rein command (cli/scripts/bundle-cli.mjs).
  version ??= (JSON.parse(readFileSync(createRequire(import.meta.url).resolve('rein-telemetry/package.json'), 'utf8')) as { version: string }).version;
  return version;
}

/** The export's outcome so far. */
interface ExportTally {
  exported: number;
  failed: number;
  /** The first failure, in one line. */
  firstError?: string;
}

/**
 * The official OTLP/HTTP exporter for these settings, counting what it
 * delivered and reporting its first failure (the SDK only logs failures to
 * a diagnostic logger nobody registered).
 *
 * @example const { exporter, tally } = createOtlpExporter(settings, (error) => warn(error));
 */
export function createOtlpExporter(settings: OtlpSettings, onFirstFailure?: (error: string) => void): { exporter: SpanExporter; tally: ExportTally } {
  const inner = new OTLPTraceExporter({ url: settings.url, headers: settings.headers, timeoutMillis: settings.timeoutMs });
  const tally: ExportTally = { exported: 0, failed: 0 };
  const exporter: SpanExporter = {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void) {
      inner.export(spans, (result) => {
        if (result.code === ExportResultCode.SUCCESS) {
          tally.exported += spans.length;
        } else {
          tally.failed += spans.length;
          if (tally.firstError === undefined) {
            tally.firstError = describe(result.error);
            onFirstFailure?.(tally.firstError);
          }
        }
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush(),
  };
  return { exporter, tally };
}

/** service.name, service.version and OTEL_RESOURCE_ATTRIBUTES, under the pinned conventions' schema. */
export function createResource(settings: OtlpSettings): Resource {
  return resourceFromAttributes(
    { ...settings.resource, [GENERAL.serviceVersion]: settings.resource[GENERAL.serviceVersion] ?? reinVersion() },
    { schemaUrl: SCHEMA_URL },
  );
}

function describe(error: Error | undefined): string {
  if (!error) return 'the collector did not accept the spans';
  const code = (error as { code?: unknown }).code;
  const data = (error as { data?: unknown }).data;
  const detail = typeof data === 'string' && data.trim() ? `: ${data.trim().slice(0, 200)}` : '';
  return `${typeof code === 'number' ? `HTTP ${code} ` : ''}${error.message || error.name}${detail}`.replace(/\s+/g, ' ').trim();
}
