import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One span as the receiver decoded it from an OTLP/HTTP JSON request. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  /** Milliseconds since the epoch. */
  start: number;
  end: number;
  attributes: Record<string, unknown>;
  events: Array<{ name: string; time: number; attributes: Record<string, unknown> }>;
  status: { code: number; message?: string };
  resource: Record<string, unknown>;
  scope: { name: string; version?: string; schemaUrl?: string };
}

/** One histogram data point as the receiver decoded it from an OTLP/HTTP JSON metrics request. */
export interface ReceivedPoint {
  metric: string;
  unit: string;
  attributes: Record<string, unknown>;
  count: number;
  sum: number;
  bucketCounts: number[];
  explicitBounds: number[];
  resource: Record<string, unknown>;
  scope: { name: string; version?: string; schemaUrl?: string };
}

export interface OtlpReceiver {
  /** The base URL (what `--otel` takes); traces go to `${url}/v1/traces`, metrics to `${url}/v1/metrics`. */
  url: string;
  spans: ReceivedSpan[];
  /** The histogram points of every metrics request, in order (cumulative: a later export repeats the earlier ones). */
  points: ReceivedPoint[];
  /** Every request body, raw, to search for what must never be sent. */
  bodies: string[];
  requests: Array<{ path: string; headers: IncomingMessage['headers'] }>;
  close(): Promise<void>;
}

/**
 * A small OTLP/HTTP collector for tests: a node:http server on a free
 * loopback port that decodes the JSON bodies rein's exporter sends
 * (`mode: 'hang'` takes requests and never answers).
 */
export async function startOtlpReceiver(mode: 'ok' | 'hang' = 'ok'): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const points: ReceivedPoint[] = [];
  const bodies: string[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const sockets = new Set<Socket>();
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({ path: request.url ?? '', headers: request.headers });
      const body = Buffer.concat(chunks).toString('utf8');
      bodies.push(body);
      if (mode === 'hang') return;
      if (request.method === 'POST' && request.url === '/v1/metrics') {
        points.push(...decodeMetrics(JSON.parse(body)));
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      spans.push(...decode(JSON.parse(body)));
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    points,
    bodies,
    requests,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean; arrayValue?: { values?: AnyValue[] } };
type KeyValue = { key: string; value: AnyValue };

function value(any: AnyValue): unknown {
  if (any.stringValue !== undefined) return any.stringValue;
  if (any.intValue !== undefined) return Number(any.intValue);
  if (any.doubleValue !== undefined) return any.doubleValue;
  if (any.boolValue !== undefined) return any.boolValue;
  if (any.arrayValue) return (any.arrayValue.values ?? []).map(value);
  return null;
}

function attributes(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((entry) => [entry.key, value(entry.value)]));
}

const millis = (nanos: string | number) => Number(BigInt(nanos) / 1000n) / 1000;

function decode(body: {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{ scope?: { name: string; version?: string }; schemaUrl?: string; spans?: Array<Record<string, unknown>> }>;
  }>;
}): ReceivedSpan[] {
  const result: ReceivedSpan[] = [];
  for (const resourceSpans of body.resourceSpans ?? []) {
    const resource = attributes(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      const scope = {
        name: scopeSpans.scope?.name ?? '',
        ...(scopeSpans.scope?.version ? { version: scopeSpans.scope.version } : {}),
        ...(scopeSpans.schemaUrl ? { schemaUrl: scopeSpans.schemaUrl } : {}),
      };
      for (const span of scopeSpans.spans ?? []) {
        result.push({
          traceId: String(span.traceId),
          spanId: String(span.spanId),
          parentSpanId: String(span.parentSpanId ?? ''),
          name: String(span.name),
          kind: Number(span.kind),
          start: millis(span.startTimeUnixNano as string),
          end: millis(span.endTimeUnixNano as string),
          attributes: attributes(span.attributes as KeyValue[]),
          events: ((span.events ?? []) as Array<{ name: string; timeUnixNano: string; attributes?: KeyValue[] }>).map((event) => ({
            name: event.name,
            time: millis(event.timeUnixNano),
            attributes: attributes(event.attributes),
          })),
          status: (span.status ?? { code: 0 }) as ReceivedSpan['status'],
          resource,
          scope,
        });
      }
    }
  }
  return result;
}

type MetricsBody = {
  resourceMetrics?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeMetrics?: Array<{
      scope?: { name: string; version?: string };
      schemaUrl?: string;
      metrics?: Array<{
        name: string;
        unit?: string;
        histogram?: {
          dataPoints?: Array<{
            attributes?: KeyValue[];
            count: string | number;
            sum?: number;
            bucketCounts?: Array<string | number>;
            explicitBounds?: number[];
          }>;
        };
      }>;
    }>;
  }>;
};

function decodeMetrics(body: MetricsBody): ReceivedPoint[] {
  const result: ReceivedPoint[] = [];
  for (const resourceMetrics of body.resourceMetrics ?? []) {
    const resource = attributes(resourceMetrics.resource?.attributes);
    for (const scopeMetrics of resourceMetrics.scopeMetrics ?? []) {
      const scope = {
        name: scopeMetrics.scope?.name ?? '',
        ...(scopeMetrics.scope?.version ? { version: scopeMetrics.scope.version } : {}),
        ...(scopeMetrics.schemaUrl ? { schemaUrl: scopeMetrics.schemaUrl } : {}),
      };
      for (const metric of scopeMetrics.metrics ?? []) {
        for (const point of metric.histogram?.dataPoints ?? []) {
          result.push({
            metric: metric.name,
            unit: metric.unit ?? '',
            attributes: attributes(point.attributes),
            count: Number(point.count),
            sum: point.sum ?? 0,
            bucketCounts: (point.bucketCounts ?? []).map(Number),
            explicitBounds: point.explicitBounds ?? [],
            resource,
            scope,
          });
        }
      }
    }
  }
  return result;
}
