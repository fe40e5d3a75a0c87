import { assign, fromCallback, fromPromise, setup } from 'xstate';
import type { Connection } from './connect.js';

interface ServerMachineInput {
  name: string;
  maxRestarts: number;
}

interface ServerContext extends ServerMachineInput {
  connection: Connection | null;
  /** Restarts so far (after crashes of a server that had been ready). */
  restarts: number;
  /** A server that never came up is not restarted: it failed to start, and the run goes on without it. */
  everReady: boolean;
  /** Why the last start failed or the last connection ended. */
  problem: string | null;
}

type ServerEvent = { type: 'lost'; why: string } | { type: 'close' };

/** Backoff before restart n (0-based): 0.5 s, 1 s, 2 s, … at most 10 s. */
export function restartDelayMs(restarts: number): number {
  return Math.min(500 * 2 ** restarts, 10_000);
}

/**
 * One MCP server's lifecycle as a statechart: starting → ready, a lost
 * connection → restarting (bounded, with backoff) → starting again, or
 * failed once the restarts are spent or the first start fails; `close`
 * from any state ends in closed. The connection and its watch are actors,
 * so leaving a state cancels a start under way.
 *
 * @example createActor(serverMachine.provide({ actors: { connect: fromPromise(() => connectServer(options)) } }), { input })
 */
export const serverMachine = setup({
  types: { context: {} as ServerContext, input: {} as ServerMachineInput, events: {} as ServerEvent },
  actors: {
    connect: fromPromise<Connection, { name: string; attempt: number }>(() => Promise.reject(new Error('no connect actor provided'))),
    watchConnection: fromCallback<ServerEvent, { connection: Connection }>(({ input, sendBack }) => {
      void input.connection.lost.then((why) => sendBack({ type: 'lost', why }));
    }),
    closeConnection: fromPromise<void, { connection: Connection | null }>(async ({ input }) => input.connection?.close()),
  },
  guards: {
    restartsLeft: ({ context }) => context.everReady && context.restarts < context.maxRestarts,
  },
  delays: {
    backoff: ({ context }) => restartDelayMs(context.restarts - 1),
  },
  actions: {
    keepConnection: assign({ connection: (_, params: { connection: Connection }) => params.connection, everReady: true, problem: null }),
    noteProblem: assign({ problem: (_, params: { problem: string }) => params.problem }),
    // A lost connection's process may have left children in its group: end them before the next start.
    releaseConnection: ({ context }) => void context.connection?.close(),
    dropConnection: assign({ connection: null }),
    countRestart: assign({ restarts: ({ context }) => context.restarts + 1 }),
  },
}).createMachine({
  id: 'mcpServer',
  context: ({ input }) => ({ ...input, connection: null, restarts: 0, everReady: false, problem: null }),
  initial: 'starting',
  states: {
    starting: {
      description: 'Start the server (or reach it over HTTP), run the handshake and list its tools, within the start-up timeout.',
      invoke: {
        id: 'connection',
        src: 'connect',
        input: ({ context }) => ({ name: context.name, attempt: context.restarts }),
        onDone: { target: 'ready', actions: { type: 'keepConnection', params: ({ event }) => ({ connection: event.output }) } },
        onError: [
          { guard: 'restartsLeft', target: 'restarting', actions: { type: 'noteProblem', params: ({ event }) => ({ problem: describe(event.error) }) } },
          { target: 'failed', actions: { type: 'noteProblem', params: ({ event }) => ({ problem: describe(event.error) }) } },
        ],
      },
      on: { close: 'closed' },
    },
    ready: {
      description: 'Connected: tool calls go to the server; a lost connection (a crash) restarts it.',
      invoke: { id: 'watch', src: 'watchConnection', input: ({ context }) => ({ connection: context.connection! }) },
      on: {
        lost: [
          {
            guard: 'restartsLeft',
            target: 'restarting',
            actions: [{ type: 'noteProblem', params: ({ event }) => ({ problem: event.why }) }, 'releaseConnection', 'dropConnection'],
          },
          { target: 'failed', actions: [{ type: 'noteProblem', params: ({ event }) => ({ problem: event.why }) }, 'releaseConnection', 'dropConnection'] },
        ],
        close: 'closing',
      },
    },
    restarting: {
      description: 'Wait (backoff doubling from 0.5 s) before starting the server again.',
      entry: 'countRestart',
      after: { backoff: 'starting' },
      on: { close: 'closed' },
    },
    failed: {
      description: 'Did not start, or crashed more often than maxRestarts: its tools answer with an error for the rest of the run.',
      on: { close: 'closed' },
    },
    closing: {
      description: 'The run is ending: close the connection and end the server process group.',
      invoke: { id: 'closer', src: 'closeConnection', input: ({ context }) => ({ connection: context.connection }), onDone: 'closed', onError: 'closed' },
    },
    closed: { type: 'final', description: 'Ended with the run.' },
  },
});

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
