import { UsageError } from 'rein/lib';
import { contentOptedIn } from './content.js';

/** Where and how spans go: resolved once from the flags and the standard OTEL_* variables. */
export interface OtlpSettings {
  /** The full OTLP/HTTP traces URL (…/v1/traces). */
  url: string;
  headers: Record<string, string>;
  /** The OTLP/HTTP metrics URL (…/v1/metrics) for the GenAI client metrics, or null when metrics are turned off (OTEL_METRICS_EXPORTER=none). */
  metricsUrl: string | null;
  metricsHeaders: Record<string, string>;
  timeoutMs: number;
  /** Export contents (opt-in attributes). */
  content: boolean;
  /** Resource attributes: service.name and OTEL_RESOURCE_ATTRIBUTES. */
  resource: Record<string, string>;
  /** Things to tell the user once, before anything is sent. */
  notes: string[];
}

interface SettingsInput {
  /** `--otel URL` / `--endpoint URL`: a collector's base URL, or its full traces URL. */
  url?: string;
  /** The flag's name, for messages (default `--otel`). */
  flag?: string;
  /** `--otel-content` / `--content`. */
  content?: boolean;
  env: NodeJS.ProcessEnv;
  /** Where to send when neither a flag nor the environment names a collector (`rein trace export`); none means no export. */
  fallbackUrl?: string;
  /**
   * Told when an OTEL_* endpoint variable is not a URL, which then exports nothing: a run is not
   * refused for a variable set for other programs. Without it, that is a usage error.
   */
  onEnvProblem?: (message: string) => void;
}

/** The OTLP/HTTP default of every OpenTelemetry SDK. */
export const DEFAULT_TRACES_URL = 'http://localhost:4318/v1/traces';
const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * The export settings, or null when nothing asks for an export: a flag, else
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as is), else OTEL_EXPORTER_OTLP_ENDPOINT
 * (+ `/v1/traces`), as the OTLP exporter specification says. OTEL_SDK_DISABLED=true
 * or OTEL_TRACES_EXPORTER=none turn the environment's export off (a flag still wins).
 *
 * @example (await resolveOtlpSettings({ url: 'http://localhost:4318', env: process.env }))?.url // 'http://localhost:4318/v1/traces'
 */
export async function resolveOtlpSettings(input: SettingsInput): Promise<OtlpSettings | null> {
  const { env } = input;
  const url = input.url !== undefined ? tracesUrl(input.url, input.flag ?? '--otel') : (checkedEnvUrl(env, input.onEnvProblem) ?? input.fallbackUrl);
  if (url === undefined) return null;
  // Loaded only when there is an export: every run's start-up would pay for it otherwise.
  const { parseKeyPairsIntoRecord } = await import('@opentelemetry/core');
  const notes: string[] = [];
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? '').trim();
  if (protocol === 'grpc')
    notes.push(
      `OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: rein sends OTLP over HTTP (JSON bodies) to ${displayUrl(url)}; point it at the collector's HTTP port (4318)`,
    );
  const resource = { ...parseKeyPairsIntoRecord(env.OTEL_RESOURCE_ATTRIBUTES) };
  resource['service.name'] = env.OTEL_SERVICE_NAME?.trim() || resource['service.name'] || 'rein';
  return {
    url,
    // Signal-specific headers win over the general ones, as in the OpenTelemetry SDKs.
    headers: { ...parseKeyPairsIntoRecord(env.OTEL_EXPORTER_OTLP_HEADERS), ...parseKeyPairsIntoRecord(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS) },
    metricsUrl: metricsUrlFor(url, input.url !== undefined, env),
    metricsHeaders: { ...parseKeyPairsIntoRecord(env.OTEL_EXPORTER_OTLP_HEADERS), ...parseKeyPairsIntoRecord(env.OTEL_EXPORTER_OTLP_METRICS_HEADERS) },
    timeoutMs: positive(env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT) ?? positive(env.OTEL_EXPORTER_OTLP_TIMEOUT) ?? DEFAULT_TIMEOUT_MS,
    content: input.content === true || contentOptedIn(env),
    resource,
    notes,
  };
}

/** A URL for messages: no user, password or query (they may hold credentials). */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(unparsable URL)';
  }
}

/**
 * Where the metrics go: OTEL_EXPORTER_OTLP_METRICS_ENDPOINT as is (unless a flag named the collector), else beside the
 * traces (`…/v1/traces` becomes `…/v1/metrics`), as the exporter specification derives each signal's path from one
 * base; null with OTEL_METRICS_EXPORTER=none.
 */
function metricsUrlFor(tracesUrl: string, fromFlag: boolean, env: NodeJS.ProcessEnv): string | null {
  if (
    env.OTEL_METRICS_EXPORTER?.split(',')
      .map((name) => name.trim())
      .includes('none')
  )
    return null;
  const own = env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT?.trim();
  if (own && !fromFlag) return checkedUrl(own, 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT');
  const parsed = new URL(tracesUrl);
  parsed.pathname = parsed.pathname.replace(/\/v1\/traces\/?$/, '/v1/metrics');
  if (!parsed.pathname.endsWith('/v1/metrics')) parsed.pathname = `${parsed.pathname.replace(/\/+$/, '')}/v1/metrics`;
  return parsed.toString();
}

function checkedEnvUrl(env: NodeJS.ProcessEnv, onProblem: SettingsInput['onEnvProblem']): string | undefined {
  if (!onProblem) return envUrl(env);
  try {
    return envUrl(env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    onProblem(`${error.message}; no spans are exported`);
    return undefined;
  }
}

function envUrl(env: NodeJS.ProcessEnv): string | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  if (
    env.OTEL_TRACES_EXPORTER?.split(',')
      .map((name) => name.trim())
      .includes('none')
  )
    return undefined;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return checkedUrl(traces, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return base ? appendTracesPath(checkedUrl(base, 'OTEL_EXPORTER_OTLP_ENDPOINT')) : undefined;
}

/** A flag's URL: a base URL gets `/v1/traces`, a full traces URL is kept. */
function tracesUrl(raw: string, source: string): string {
  const url = checkedUrl(raw.trim(), source);
  return new URL(url).pathname.replace(/\/+$/, '').endsWith('/v1/traces') ? url : appendTracesPath(url);
}

function appendTracesPath(url: string): string {
  return `${url.replace(/\/+$/, '')}/v1/traces`;
}

function checkedUrl(raw: string, source: string): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new UsageError(`${source}: not a URL: "${raw}" (expected something like http://localhost:4318)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`${source}: expected an http:// or https:// URL, got "${raw}"`);
  return raw;
}

function positive(value: string | undefined): number | undefined {
  const number = Number(value);
  return value !== undefined && value.trim() !== '' && Number.isFinite(number) && number > 0 ? number : undefined;
}
