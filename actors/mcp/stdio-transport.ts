import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { parseBoundedJson } from '../../lib/json-depth.js';
import { descendantsOf, isGone } from '../../tools/sandbox/lifetime/proc.js';
import type { StdioLaunch } from './stdio-launch.js';

/** Largest message a server may send; more without a newline ends the connection (a runaway or hostile server). */
const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
/** Most bytes of a server's stderr kept in its log file for one run. */
const MAX_STDERR_BYTES = 4 * 1024 * 1024;
/** From SIGTERM to SIGKILL when a server is closed. */
const CLOSE_GRACE_MS = 2_000;
/** From a server's stdout closing to ending the connection, unless the process exits first (then its exit is the reason). */
const STDOUT_END_GRACE_MS = 100;
/** How long a close waits for the server's processes outside its group (a sandbox's) to be gone after SIGKILL. */
const FAMILY_WAIT_MS = 2_000;

interface StdioTransportOptions {
  launch: StdioLaunch;
  /** The server's stderr is appended here (the run directory), capped at MAX_STDERR_BYTES. */
  stderrPath: string;
}

/**
 * A stdio transport for the SDK's `Client` that owns its process the way rein
 * owns commands: its own process group (killed whole on close, SIGKILL after a
 * grace), stderr into a capped log file, and lines on stdout that are not
 * JSON-RPC (a banner, a stray `console.log`) logged and skipped instead of
 * ending the connection.
 *
 * @example const client = new Client(info); await client.connect(new GroupStdioTransport({ launch, stderrPath }));
 */
export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Lines on stdout that were not JSON-RPC, for the trace. */
  garbageLines = 0;
  private child: ChildProcess | null = null;
  private buffer: Buffer = Buffer.alloc(0);
  private stderrBytes = 0;
  private readonly log: fs.WriteStream;
  private exited: Promise<void> = Promise.resolve();
  private closing: Promise<void> | null = null;
  private stderrTail = '';
  private exit: string | null = null;
  private closeTold = false;

  constructor(private readonly options: StdioTransportOptions) {
    this.log = fs.createWriteStream(options.stderrPath, { flags: 'a' });
  }

  /** How the process ended and the last of its stderr, for a failure message: `exited with code 1: Error: …`. */
  get ending(): string | null {
    if (this.exit === null) return null;
    const lines = this.stderrTail
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !/^(Node\.js v[\d.]+|[{}()\]]+)$/.test(line));
    // A stack trace's message line says more than its last frames.
    const said = lines.find((line) => /\b\w*Error\b/.test(line)) ?? lines.slice(-2).join(' | ');
    return said ? `${this.exit}: ${said.slice(0, 300)}` : this.exit;
  }

  /** The server's process id (the group's leader), or null before start and after exit. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  start(): Promise<void> {
    const { argv, env, cwd } = this.options.launch;
    return new Promise((resolve, reject) => {
      const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
      this.child = child;
      this.exited = new Promise((done) => child.once('close', () => done()));
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => resolve());
      child.once('close', (code, signal) => {
        this.exit ??= `the server exited (${signal ?? `code ${code}`})`;
        this.note(`[rein] the server exited (${signal ?? `code ${code}`})`);
        this.child = null;
        this.tellClosed();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.read(chunk));
      // A server that closes its stdout can answer nothing more: the connection ends now (pending calls fail at
      // once instead of at their timeout), and the server is ended with it, as the MCP lifecycle's shutdown says.
      // A server that exits closes its stdout a moment before its exit is seen: that is told as its exit.
      child.stdout?.once('end', () => setTimeout(() => this.stdoutClosed(), STDOUT_END_GRACE_MS));
      child.stderr?.on('data', (chunk: Buffer) => this.keepStderr(chunk));
    });
  }

  /** A line for the server's log from a layer above (a dropped response). */
  report(text: string): void {
    this.note(text);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) return Promise.reject(new Error('the server is not running'));
    return new Promise((resolve) => {
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closing) return this.closing;
    this.closing = this.stop();
    return this.closing;
  }

  private async stop(): Promise<void> {
    const child = this.child;
    if (child?.pid !== undefined) {
      // Taken before the signal: a sandboxed server runs in other groups (bubblewrap's), which end a moment after ours.
      const family = descendantsOf(child.pid);
      child.stdin?.end();
      signalGroup(child.pid, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(child.pid!, 'SIGKILL'), CLOSE_GRACE_MS);
      await this.exited;
      clearTimeout(timer);
      // Whatever the server left behind in its group, and below it: closed means no process of it is left.
      signalGroup(child.pid, 'SIGKILL');
      for (const member of family) if (!isGone(member)) signalPid(member.pid, 'SIGKILL');
      for (let waited = 0; waited < FAMILY_WAIT_MS && !family.every(isGone); waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await new Promise<void>((resolve) => this.log.end(resolve));
  }

  private stdoutClosed(): void {
    if (this.closing || this.closeTold) return;
    this.exit ??= 'the server closed its stdout';
    this.note('[rein] the server closed its stdout: the connection ends and the server is stopped');
    this.tellClosed();
    void this.close();
  }

  private tellClosed(): void {
    if (this.closeTold) return;
    this.closeTold = true;
    this.onclose?.();
  }

  private read(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (let newline = this.buffer.indexOf(10); newline !== -1; newline = this.buffer.indexOf(10)) {
      const line = this.buffer.toString('utf8', 0, newline).replace(/\r$/, '');
      this.buffer = this.buffer.subarray(newline + 1);
      if (line.trim() !== '') this.take(line);
    }
    if (this.buffer.length > MAX_MESSAGE_BYTES) {
      this.buffer = Buffer.alloc(0);
      this.onerror?.(new Error(`the server sent more than ${MAX_MESSAGE_BYTES} bytes without a newline`));
      void this.close();
    }
  }

  private take(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(parseBoundedJson(line));
    } catch {
      this.garbageLines++;
      this.note(`[rein] ignored a line on stdout that is not JSON-RPC: ${line.slice(0, 200)}`);
      return;
    }
    this.onmessage?.(message);
  }

  private keepStderr(chunk: Buffer): void {
    this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-1_000);
    if (this.stderrBytes >= MAX_STDERR_BYTES) return;
    const room = MAX_STDERR_BYTES - this.stderrBytes;
    const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.stderrBytes += kept.length;
    this.log.write(kept);
    if (this.stderrBytes >= MAX_STDERR_BYTES) this.log.write(`\n[rein] stderr cut at ${MAX_STDERR_BYTES} bytes\n`);
  }

  private note(text: string): void {
    if (!this.log.writableEnded) this.log.write(`${text}\n`);
  }
}

function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone already
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone already
  }
}
