import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { makeTempDir } from '../../testing/temp-dir.js';
import { cleanEnv, reinBin, repoRoot } from '../helpers/cli.js';
import { waitUntil } from '../helpers/wait.js';

/** Temp dirs and processes a test file made, removed and stopped by `cleanUp`. */
const children: ChildProcess[] = [];

export function tempDir(prefix: string): string {
  return makeTempDir(prefix, { until: 'exit' });
}

/** Stops every process this file started (by its handle) and removes its temp dirs. */
export async function cleanUp(): Promise<void> {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(
    children.map((child) => (child.exitCode === null && child.signalCode === null ? new Promise((resolve) => child.once('exit', resolve)) : null)),
  );
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface RedisOptions {
  password?: string;
  /** Serve TLS only, with a self-signed certificate for 127.0.0.1 (`ca` is the file to trust). */
  tls?: boolean;
  /** Append-only file on, so a restart keeps the queue; off, a restart loses everything. */
  persist?: boolean;
}

export interface TestRedis {
  port: number;
  url: string;
  /** The certificate to trust (NODE_EXTRA_CA_CERTS) when serving TLS. */
  ca?: string;
  client(): Redis;
  stop(): Promise<void>;
  /** Stops and starts the same server (same port, same data dir). */
  restart(): Promise<void>;
}

/** A real redis-server on a free port, its data in a temp dir (nothing touches the machine's own Redis). */
export async function startRedis(options: RedisOptions = {}): Promise<TestRedis> {
  if (spawnSync('redis-server', ['--version']).status !== 0) throw new Error("redis-server not found: install Debian's redis-server (.ci/run does)");
  const dir = tempDir('rein-test-redis-');
  const port = await freePort();
  const args = [
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    options.persist ? 'yes' : 'no',
    '--appendfsync',
    'always',
    '--daemonize',
    'no',
  ];
  if (options.password) args.push('--requirepass', options.password);
  let ca: string | undefined;
  if (options.tls) {
    ca = join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        ca,
      ],
      { stdio: 'ignore' },
    );
    args.push('--port', '0', '--tls-port', String(port), '--tls-cert-file', ca, '--tls-key-file', join(dir, 'key.pem'), '--tls-auth-clients', 'no');
  } else {
    args.push('--port', String(port));
  }
  let server: ChildProcess | null = null;
  const start = async () => {
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    server = child;
    let output = '';
    child.stdout!.on('data', (chunk) => {
      output += chunk;
    });
    await waitUntil(() => output.includes('Ready to accept connections') || child.exitCode !== null, 'redis-server to start', 20_000);
    if (child.exitCode !== null) throw new Error(`redis-server did not start:\n${output}`);
  };
  const stop = async () => {
    const child = server;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  await start();
  const auth = options.password ? `:${options.password}@` : '';
  return {
    port,
    url: `${options.tls ? 'rediss' : 'redis'}://${auth}127.0.0.1:${port}`,
    ...(ca ? { ca } : {}),
    client: () =>
      new Redis({
        host: '127.0.0.1',
        port,
        ...(options.password ? { password: options.password } : {}),
        ...(options.tls ? { tls: { ca: readFileSync(ca!) } } : {}),
      }),
    stop,
    restart: async () => {
      await stop();
      await start();
    },
  };
}

export interface TestWorker {
  child: ChildProcess;
  log(): string;
  exited: Promise<number | null>;
}

/** `rein worker` as a real child process (the built CLI), with its own cache and a short stall time. */
export function startWorker(url: string, options: { env?: NodeJS.ProcessEnv; args?: string[] } = {}): TestWorker {
  const cache = tempDir('rein-test-cache-');
  const child = spawn(
    process.execPath,
    [reinBin, 'worker', '--queue', url, '--parallel', '1', '--cache', cache, '--stall-seconds', '3', ...(options.args ?? [])],
    { cwd: repoRoot, env: options.env ?? cleanEnv(), stdio: ['ignore', 'ignore', 'pipe'] },
  );
  children.push(child);
  let log = '';
  child.stderr!.on('data', (chunk) => {
    log += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, log: () => log, exited };
}

/** `rein eval` as a background child process (for tests that kill it), with its stderr. */
export function startEval(args: string[], env: NodeJS.ProcessEnv = cleanEnv()): { child: ChildProcess; stderr(): string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [reinBin, 'eval', ...args], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stdout!.resume();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stderr: () => stderr, exited };
}

/** The lines of a results.jsonl. */
export function readRecords(
  out: string,
): Array<Record<string, unknown> & { task: string; config: string; repeat: number; resolved: boolean; status: string; reason: string; tracePath: string }> {
  return readFileSync(join(out, 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

export function keyOf(record: { task: string; config: string; repeat: number }): string {
  return `${record.task} × ${record.config} #${record.repeat}`;
}

/** Writes a file into a fresh temp dir; returns its path. */
export function tempFile(name: string, content: string): string {
  const path = join(tempDir('rein-test-file-'), name);
  writeFileSync(path, content);
  return path;
}
