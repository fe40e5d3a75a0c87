import { Redis, type RedisOptions } from 'ioredis';
import { QueueConnectionError, UsageError } from 'rein/lib';

/** Where the queue lives, parsed from `--queue redis://…`: connection options, and the URL with its password masked for printing. */
export interface RedisEndpoint {
  options: RedisOptions;
  /** Safe to print or log: credentials replaced by `***`. */
  display: string;
}

/** Read when the URL carries no password, so it need not appear on a command line (`ps` shows those to every user). */
export const PASSWORD_ENV = 'REIN_REDIS_PASSWORD';

const PROBE_TIMEOUT_MS = 10_000;

/**
 * Parses `redis://[user:password@]host[:port][/db]` or `rediss://…` (TLS;
 * a private CA is trusted with NODE_EXTRA_CA_CERTS). A bad URL is a usage
 * error that names what was expected.
 *
 * @example parseRedisUrl('redis://:s3cret@10.0.0.5:6379/2', process.env).display // 'redis://***@10.0.0.5:6379/2'
 */
export function parseRedisUrl(text: string, env: NodeJS.ProcessEnv = {}): RedisEndpoint {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--queue: "${text}" is not a URL; expected redis://host:6379[/db] or rediss://host:6380[/db]`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new UsageError(`--queue: expected a redis:// or rediss:// URL, got ${url.protocol}//…`);
  if (!url.hostname) throw new UsageError('--queue: the URL names no host');
  const db = url.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db)) throw new UsageError(`--queue: the path must be a database number (/0 … /15), got "/${db}"`);
  const password = url.password ? decodeURIComponent(url.password) : env[PASSWORD_ENV];
  const options: RedisOptions = {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : 6379,
    ...(db ? { db: Number(db) } : {}),
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(password ? { password } : {}),
    // Node checks the certificate against the host name (or IP address) it connects to.
    ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
  };
  const credentials = url.username || url.password ? '***@' : '';
  return { options, display: `${url.protocol}//${credentials}${url.host}${db ? `/${db}` : ''}` };
}

/**
 * A connection for BullMQ and the task store: commands wait while Redis is
 * away (a restart) and the client reconnects on its own, backing off up to 2 s.
 *
 * @example const redis = openRedis(endpoint, 'rein-coordinator');
 */
export function openRedis(endpoint: RedisEndpoint, name: string): Redis {
  return new Redis({
    ...endpoint.options,
    connectionName: name,
    maxRetriesPerRequest: null,
    retryStrategy: (times) => Math.min(100 * times, 2_000),
  });
}

/**
 * Connects once, without retrying, and pings: an unreachable host, a
 * refused login or a TLS failure is one clear line before anything is
 * enqueued or taken.
 *
 * @example await probeRedis(endpoint);
 */
export async function probeRedis(endpoint: RedisEndpoint): Promise<void> {
  const redis = new Redis({ ...endpoint.options, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: PROBE_TIMEOUT_MS });
  let lastError: Error | null = null;
  redis.on('error', (error: Error) => {
    lastError = error;
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    const cause = lastError ?? (error as Error);
    throw new QueueConnectionError(`cannot use Redis at ${endpoint.display}: ${describeRedisError(cause)}`);
  } finally {
    redis.disconnect();
  }
}

/** A Redis or socket error in a few words, with what to check. */
export function describeRedisError(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (/WRONGPASS|NOAUTH|invalid password|invalid username/i.test(error.message))
    return `the login was refused (${error.message.split('\n')[0]}); check the password in the URL or ${PASSWORD_ENV}`;
  if (code === 'ECONNREFUSED') return 'connection refused; is redis-server running there, and does it listen on that address?';
  if (/certificate|SSL|TLS|EPROTO/i.test(`${code ?? ''} ${error.message}`))
    return `TLS failed (${error.message}); for a private CA set NODE_EXTRA_CA_CERTS=/path/to/ca.pem`;
  return code ? `${code} (${error.message})` : error.message;
}
