import { ErrorCode, McpError, type Tool as ServerTool } from '@modelcontextprotocol/sdk/types.js';
import { type Actor, createActor, fromPromise } from 'xstate';
import type { McpServerEvent } from '../../lib/trace/trace-events.js';
import { type Connection, type ConnectOptions, connectServer } from './connect.js';
import type { DroppedTool } from './list-tools.js';
import { whilePending } from './request-signal.js';
import { serverMachine } from './server-machine.js';

/** A lifecycle step, for the trace: `{ server: 'docs', state: 'restarting', problem: 'the connection closed' }` (the mcp_server line without its kind). */
type ServerStateNote = Omit<McpServerEvent, 'kind'>;

/** A `CallToolResult` as read: every field may be missing (old servers send `toolResult`). */
export interface ToolResult {
  content?: unknown;
  structuredContent?: unknown;
  toolResult?: unknown;
  isError?: unknown;
}

/** How one call ended, as the model and the trace see it. */
export type CallEnd = { kind: 'result'; result: ToolResult } | { kind: 'timeout' | 'crashed' | 'unavailable' | 'failed' | 'aborted'; message: string };

type ServerActor = Actor<typeof serverMachine>;

/**
 * One server: its lifecycle actor and the calls made through it. Calls wait
 * while the server is starting or restarting, and fail at once when it has
 * failed or closed.
 *
 * @example const docs = openServer({ name: 'docs', rules, ... }, note); await docs.settled; await docs.call('search', { q }, 60_000, signal);
 */
export class ServerHandle {
  readonly actor: ServerActor;
  /** Resolves once the first start has ended either way (ready or failed). */
  readonly settled: Promise<void>;
  /** The tools listed by the first start ([] if it failed). */
  firstTools: ServerTool[] = [];
  /** Tools of the first list that were dropped (an invalid definition), with why. */
  firstDropped: DroppedTool[] = [];
  /** The latest start, so that closing during one waits until its process is ended too. */
  private attempt: Promise<Connection> | null = null;

  constructor(
    readonly name: string,
    options: Omit<ConnectOptions, 'signal'>,
    private readonly note: (note: ServerStateNote) => void,
    private readonly onTools: (tools: ServerTool[]) => void = () => undefined,
  ) {
    // A list the server changes while connected is compared like one a restart brings.
    const onToolList = (tools: ServerTool[]) => this.onTools(tools);
    const connect = fromPromise<Connection, { name: string; attempt: number }>(({ signal }) => {
      this.attempt = connectServer({ ...options, signal, onToolList });
      return this.attempt;
    });
    this.actor = createActor(serverMachine.provide({ actors: { connect } }), { input: { name, maxRestarts: options.rules.maxRestarts } });
    let last = '';
    let settle: () => void = () => undefined;
    this.settled = new Promise((resolve) => {
      settle = resolve;
    });
    this.actor.subscribe((snapshot) => {
      const state = String(snapshot.value);
      if (state === last) return;
      last = state;
      const { connection, restarts, problem } = snapshot.context;
      if (state === 'ready' && connection) {
        if (this.firstTools.length === 0 && restarts === 0) {
          this.firstTools = connection.tools;
          this.firstDropped = connection.dropped;
        } else this.onTools(connection.tools);
      }
      this.note({
        server: name,
        state,
        restarts,
        problem: state === 'ready' ? null : problem,
        ...(connection ? { where: connection.where, tools: connection.tools.length, garbageLines: connection.garbageLines() } : {}),
      });
      if (state !== 'starting') settle();
    });
    this.actor.start();
  }

  /** The live stdio server's process group, for tests and diagnostics. */
  get pid(): number | null {
    return this.actor.getSnapshot().context.connection?.pid() ?? null;
  }

  /** Why it failed or is restarting; null when it is fine. */
  get problem(): string | null {
    return this.actor.getSnapshot().context.problem;
  }

  get state(): string {
    return String(this.actor.getSnapshot().value);
  }

  /**
   * Calls a tool once, with a timeout. A timed-out call is cancelled on the
   * server (the SDK sends `notifications/cancelled`).
   */
  async call(tool: string, args: Record<string, unknown>, timeoutMs: number, signal: AbortSignal): Promise<CallEnd> {
    const connection = await this.whenReady(signal);
    if ('message' in connection) return connection;
    try {
      // The call's own signal follows the run's only while it is pending: an answered call is never cancelled.
      const result = await whilePending(signal, (own) =>
        connection.client.callTool({ name: tool, arguments: args }, undefined, { ...(own ? { signal: own } : {}), timeout: timeoutMs }),
      );
      return { kind: 'result', result: result as ToolResult };
    } catch (error) {
      if (signal.aborted) return { kind: 'aborted', message: 'the call was cancelled (the run is stopping)' };
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
        return { kind: 'timeout', message: `${this.name} did not answer within ${timeoutMs / 1000} s; the call was cancelled` };
      if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) return { kind: 'crashed', message: `${this.name} crashed during the call` };
      return { kind: 'failed', message: error instanceof Error ? error.message.slice(0, 2_000) : String(error).slice(0, 2_000) };
    }
  }

  async close(): Promise<void> {
    this.actor.send({ type: 'close' });
    await new Promise<void>((resolve) => {
      if (this.actor.getSnapshot().status === 'done') return resolve();
      this.actor.subscribe({ complete: resolve, error: () => resolve() });
    });
    // A start cut short by the close ends its own process (its signal aborted); one that got through just then is closed here.
    const late = await this.attempt?.catch(() => null);
    if (late && late !== this.actor.getSnapshot().context.connection) await late.close();
  }

  /** The live connection, waiting through a start or restart; or why there is none. */
  private whenReady(signal: AbortSignal): Promise<Connection | Extract<CallEnd, { message: string }>> {
    return new Promise((resolve) => {
      const check = () => {
        const snapshot = this.actor.getSnapshot();
        const state = String(snapshot.value);
        if (state === 'ready' && snapshot.context.connection) return done(snapshot.context.connection);
        if (state === 'failed' || state === 'closed' || state === 'closing')
          return done({ kind: 'unavailable', message: `${this.name} is ${state}${snapshot.context.problem ? ` (${snapshot.context.problem})` : ''}` });
        if (signal.aborted) return done({ kind: 'aborted', message: 'the call was cancelled (the run is stopping)' });
      };
      const subscription = this.actor.subscribe(check);
      const onAbort = () => check();
      signal.addEventListener('abort', onAbort, { once: true });
      let finished = false;
      function done(value: Connection | Extract<CallEnd, { message: string }>) {
        if (finished) return;
        finished = true;
        queueMicrotask(() => subscription.unsubscribe());
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      }
      check();
    });
  }
}
