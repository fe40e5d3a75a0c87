import { UsageError } from 'rein/lib';
import { type OtlpSettings, resolveOtlpSettings } from 'rein-telemetry/otlp-settings.js';
import { type FlagSpec, type ParsedCommand, stringFlag } from './args.js';

/** `--otel URL` and `--otel-content`, shared by the commands that run the harness. */
export const OTEL_FLAGS: FlagSpec = { otel: { type: 'string' }, 'otel-content': { type: 'boolean' } };

export const OTEL_USAGE = `  --otel URL             export OpenTelemetry GenAI spans over OTLP/HTTP while running, to a collector's base
                         URL (…:4318) or traces URL (also on with OTEL_EXPORTER_OTLP_ENDPOINT or …_TRACES_ENDPOINT)
  --otel-content         include message contents, tool arguments and results in the spans (redacted as in
                         the trace; or OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true)`;

/**
 * The live export's settings from the flags and the OTEL_* environment, or null for none. A bad
 * `--otel` is a usage error; a bad OTEL_* endpoint is a warning (it may be set for other programs).
 */
export async function otelSettings(command: string, parsed: ParsedCommand, env: NodeJS.ProcessEnv, warn: (text: string) => void): Promise<OtlpSettings | null> {
  let settings: OtlpSettings | null;
  try {
    settings = await resolveOtlpSettings({
      url: stringFlag(parsed, 'otel'),
      content: parsed.values['otel-content'] === true,
      env,
      onEnvProblem: (message) => warn(`${command}: OpenTelemetry: ${message}\n`),
    });
  } catch (error) {
    throw error instanceof UsageError ? new UsageError(`${command}: ${error.message}`) : error;
  }
  if (!settings && parsed.values['otel-content'] === true) {
    throw new UsageError(`${command}: --otel-content needs a collector: pass --otel URL or set OTEL_EXPORTER_OTLP_ENDPOINT`);
  }
  return settings;
}
