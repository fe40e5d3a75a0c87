import { describe, expect, it } from 'vitest';
import { UsageError } from '../../lib/errors.js';
import { contentOptedIn } from '../../telemetry/content.js';
import { displayUrl, resolveOtlpSettings } from '../../telemetry/otlp-settings.js';

describe('where spans go: --otel and the standard OTEL_* variables', () => {
  it('exports nothing unless a flag or the environment names a collector', async () => {
    expect(await resolveOtlpSettings({ env: {} })).toBeNull();
    expect(await resolveOtlpSettings({ env: { OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_HEADERS: 'a=b' } })).toBeNull();
  });

  it('a base endpoint gets /v1/traces; the traces endpoint is used as is and wins; a flag wins over both', async () => {
    expect((await resolveOtlpSettings({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' } }))?.url).toBe('http://collector:4318/v1/traces');
    expect((await resolveOtlpSettings({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' } }))?.url).toBe('http://collector:4318/v1/traces');
    expect(
      (await resolveOtlpSettings({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/custom/path' } }))?.url,
    ).toBe('https://b/custom/path');
    const env = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/custom/path' };
    expect((await resolveOtlpSettings({ url: 'http://localhost:4318', env }))?.url).toBe('http://localhost:4318/v1/traces');
    expect((await resolveOtlpSettings({ url: 'http://localhost:4318/v1/traces', env }))?.url).toBe('http://localhost:4318/v1/traces');
    expect((await resolveOtlpSettings({ url: 'https://otel.example/api/public/otel', env }))?.url).toBe('https://otel.example/api/public/otel/v1/traces');
  });

  it('metrics go beside the traces (…/v1/metrics), or to OTEL_EXPORTER_OTLP_METRICS_ENDPOINT; OTEL_METRICS_EXPORTER=none turns them off', async () => {
    const metricsUrl = async (input: Parameters<typeof resolveOtlpSettings>[0]) => (await resolveOtlpSettings(input))?.metricsUrl;
    expect(await metricsUrl({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' } })).toBe('http://collector:4318/v1/metrics');
    expect(await metricsUrl({ url: 'https://otel.example/api/public/otel', env: {} })).toBe('https://otel.example/api/public/otel/v1/metrics');
    expect(await metricsUrl({ url: 'http://localhost:4318/v1/traces', env: {} })).toBe('http://localhost:4318/v1/metrics');
    expect(await metricsUrl({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'https://m/ingest' } })).toBe(
      'https://m/ingest',
    );
    expect(await metricsUrl({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_METRICS_EXPORTER: 'none' } })).toBeNull();
    const headers = (await resolveOtlpSettings({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_HEADERS: 'x=1', OTEL_EXPORTER_OTLP_METRICS_HEADERS: 'x=2' },
    }))!;
    expect([headers.headers, headers.metricsHeaders]).toEqual([{ x: '1' }, { x: '2' }]);
  });

  it("OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none turn the environment's export off, not an explicit flag", async () => {
    expect(await resolveOtlpSettings({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' } })).toBeNull();
    expect(await resolveOtlpSettings({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' } })).toBeNull();
    expect((await resolveOtlpSettings({ url: 'http://c:4318', env: { OTEL_SDK_DISABLED: 'true' } }))?.url).toBe('http://c:4318/v1/traces');
  });

  it('reads headers (the traces ones win), the timeout and the resource the standard way', async () => {
    const settings = (await resolveOtlpSettings({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Basic%20abc,x-team=a',
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-team=b',
        OTEL_EXPORTER_OTLP_TIMEOUT: '2500',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=ci,service.name=ignored',
        OTEL_SERVICE_NAME: 'agents',
      },
    }))!;
    expect(settings.headers).toEqual({ authorization: 'Basic abc', 'x-team': 'b' });
    expect(settings.timeoutMs).toBe(2500);
    expect(settings.resource).toEqual({ 'deployment.environment': 'ci', 'service.name': 'agents' });
    expect((await resolveOtlpSettings({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' } }))!.resource['service.name']).toBe('rein');
  });

  it('says plainly that gRPC is not spoken, and rejects a URL that is not one', async () => {
    expect((await resolveOtlpSettings({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' } }))!.notes[0]).toMatch(
      /grpc is not supported/,
    );
    await expect(resolveOtlpSettings({ url: 'localhost:4318', env: {} })).rejects.toThrow(UsageError);
    await expect(resolveOtlpSettings({ url: 'not a url', env: {} })).rejects.toThrow(/--otel: not a URL/);
    await expect(resolveOtlpSettings({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://c' } })).rejects.toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT: expected an http/);
    // For a run, a variable set for other programs (a gRPC-style host:port) is a warning and no export, not a refused run.
    const problems: string[] = [];
    expect(await resolveOtlpSettings({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'localhost:4317' }, onEnvProblem: (message) => problems.push(message) })).toBeNull();
    expect(problems).toEqual(['OTEL_EXPORTER_OTLP_ENDPOINT: expected an http:// or https:// URL, got "localhost:4317"; no spans are exported']);
    await expect(resolveOtlpSettings({ url: 'localhost:4318', env: {}, onEnvProblem: () => undefined })).rejects.toThrow(UsageError);
  });

  it("contents are opt-in: the flag, or the GenAI instrumentations' variable", async () => {
    expect((await resolveOtlpSettings({ url: 'http://c', env: {} }))!.content).toBe(false);
    expect((await resolveOtlpSettings({ url: 'http://c', content: true, env: {} }))!.content).toBe(true);
    for (const value of ['true', 'TRUE', 'span_only', 'SPAN_AND_EVENT'])
      expect(contentOptedIn({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: value })).toBe(true);
    for (const value of ['false', 'NO_CONTENT', 'EVENT_ONLY', ''])
      expect(contentOptedIn({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: value })).toBe(false);
  });

  it("never prints a URL's credentials or query", async () => {
    expect(displayUrl('https://user:pw@otel.example:4318/v1/traces?token=abc')).toBe('https://otel.example:4318/v1/traces');
  });
});
