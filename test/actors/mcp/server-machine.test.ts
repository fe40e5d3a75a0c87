import { describe, expect, it } from 'vitest';
import { initialTransition, transition } from 'xstate';
import type { Connection } from '../../../actors/mcp/connect.js';
import { restartDelayMs, serverMachine } from '../../../actors/mcp/server-machine.js';

const connection = { tools: [], where: 'stdio' } as unknown as Connection;
const connected = { type: 'xstate.done.actor.connection', output: connection } as never;
const startFailed = { type: 'xstate.error.actor.connection', error: new Error('did not start within 30 s') } as never;
const lost = { type: 'lost', why: 'the connection closed' } as const;

function ready(maxRestarts: number) {
  const [start] = initialTransition(serverMachine, { name: 'docs', maxRestarts });
  return transition(serverMachine, start, connected)[0];
}

describe("an MCP server's lifecycle (actors/mcp/server-machine.ts)", () => {
  it('starting → ready once the handshake and the tool list are done', () => {
    const [start] = initialTransition(serverMachine, { name: 'docs', maxRestarts: 3 });
    expect(start.value).toBe('starting');
    expect(ready(3).value).toBe('ready');
  });

  it('a first start that fails is failed, not retried: the run goes on without the server', () => {
    const [start] = initialTransition(serverMachine, { name: 'docs', maxRestarts: 3 });
    const [next] = transition(serverMachine, start, startFailed);
    expect(next.value).toBe('failed');
    expect(next.context.problem).toBe('did not start within 30 s');
  });

  it('a lost connection restarts the server until maxRestarts are spent, then it is failed', () => {
    let snapshot = ready(2);
    for (const restart of [1, 2]) {
      [snapshot] = transition(serverMachine, snapshot, lost);
      expect(snapshot.value).toBe('restarting');
      expect(snapshot.context.restarts).toBe(restart);
      // A restart that fails to start counts too, and is retried while restarts are left.
      [snapshot] = transition(serverMachine, snapshot, { type: 'xstate.after.backoff.mcpServer.restarting' } as never);
      expect(snapshot.value).toBe('starting');
      [snapshot] = transition(serverMachine, snapshot, connected);
      expect(snapshot.value).toBe('ready');
    }
    [snapshot] = transition(serverMachine, snapshot, lost);
    expect(snapshot.value).toBe('failed');
    expect(snapshot.context.problem).toBe('the connection closed');
  });

  it('close ends it from every state', () => {
    const [start] = initialTransition(serverMachine, { name: 'docs', maxRestarts: 1 });
    expect(transition(serverMachine, start, { type: 'close' })[0].value).toBe('closed');
    expect(transition(serverMachine, ready(1), { type: 'close' })[0].value).toBe('closing');
    const [restarting] = transition(serverMachine, ready(1), lost);
    expect(transition(serverMachine, restarting, { type: 'close' })[0].value).toBe('closed');
    const [failed] = transition(serverMachine, start, startFailed);
    expect(transition(serverMachine, failed, { type: 'close' })[0].value).toBe('closed');
  });

  it('backs off 0.5 s, 1 s, 2 s, … up to 10 s', () => {
    expect([0, 1, 2, 3, 4, 5, 10].map(restartDelayMs)).toEqual([500, 1000, 2000, 4000, 8000, 10_000, 10_000]);
  });
});
