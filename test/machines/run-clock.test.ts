import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, SimulatedClock } from 'xstate';
import type { ContextOutput } from '../../machines/actor-contracts.js';
import { createHarnessMachine, probeHarness, rulesSchema } from '../../testing/index.js';

// The run's clock (machines/harness-setup.ts): the time budget and its warning are raised events, armed when the
// run starts with the time a resumed run has left, and re-armed (never doubled) on clock.restart.

const rules = rulesSchema.parse({ budgets: { maxSeconds: 100, warnAt: 0.5 } });

/** A run whose model never answers, on a simulated clock. */
function startRun(elapsedMs = 0) {
  const clock = new SimulatedClock();
  const contextManager = fromPromise<ContextOutput>(async ({ input }) => ({
    contextState: (input as { contextState: ContextOutput['contextState'] }).contextState,
    messages: [],
    tokens: 10,
    action: 'none',
    before: { chars: 0, tokens: 0 },
    chars: 0,
  }));
  const model = fromPromise(() => new Promise<never>(() => {}));
  const machine = createHarnessMachine(rules).provide({ actors: { contextManager, model } as never });
  const actor = createActor(machine, { input: { task: 't', testCmd: 'npm test', elapsedMs }, clock });
  actor.start();
  return { actor, clock };
}

describe("the run's clock", () => {
  it('the warning comes at warnAt of the time budget, the end at the budget', () => {
    const { actor, clock } = startRun();
    clock.increment(49_999);
    expect(actor.getSnapshot().context.warned.time).toBeUndefined();
    clock.increment(1);
    expect(actor.getSnapshot().context.warned.time).toBe(true);
    expect(actor.getSnapshot().context.notices).toHaveLength(1);
    clock.increment(49_999);
    expect(actor.getSnapshot().status).toBe('active');
    clock.increment(1);
    expect(actor.getSnapshot().value).toBe('timeout');
    expect(actor.getSnapshot().output?.status).toBe('timeout');
  });

  it('a resumed run has only the time it had left, and a spent budget ends it at once', () => {
    const { actor, clock } = startRun(30_000);
    clock.increment(19_999);
    expect(actor.getSnapshot().context.warned.time).toBeUndefined();
    clock.increment(1);
    expect(actor.getSnapshot().context.warned.time).toBe(true);
    clock.increment(49_999);
    expect(actor.getSnapshot().status).toBe('active');
    clock.increment(1);
    expect(actor.getSnapshot().value).toBe('timeout');
    const spent = startRun(150_000);
    spent.clock.increment(0);
    expect(spent.actor.getSnapshot().value).toBe('timeout');
  });

  it('clock.restart re-arms both timers in place of the old ones', () => {
    const { actor, clock } = startRun();
    clock.increment(40_000);
    actor.send({ type: 'clock.restart' });
    clock.increment(10_000);
    // The old warning (due at 50 s) was cancelled: the new one is due 50 s after the restart.
    expect(actor.getSnapshot().context.warned.time).toBeUndefined();
    clock.increment(40_000);
    expect(actor.getSnapshot().context.warned.time).toBe(true);
    clock.increment(20_000);
    // Past the old end (100 s), before the new one (140 s).
    expect(actor.getSnapshot().status).toBe('active');
    clock.increment(30_000);
    expect(actor.getSnapshot().value).toBe('timeout');
  });
});

describe('why a run failed', () => {
  it('an error is named with its class and message; anything else as it reads', () => {
    const probe = probeHarness(createHarnessMachine(rules), rules, { at: 'build.think' });
    expect(probe.send({ type: 'xstate.error.actor.model', error: new TypeError('fetch failed') }).context.reason).toBe('TypeError: fetch failed');
    // The same form for an error that prints itself otherwise.
    class Noisy extends Error {
      override name = 'Noisy';
      override toString() {
        return 'noise';
      }
    }
    const noisy = probeHarness(createHarnessMachine(rules), rules, { at: 'build.think' });
    expect(noisy.send({ type: 'xstate.error.actor.model', error: new Noisy('lost') }).context.reason).toBe('Noisy: lost');
    const other = probeHarness(createHarnessMachine(rules), rules, { at: 'build.act' });
    expect(other.send({ type: 'xstate.error.actor.tools', error: 'socket closed' }).context.reason).toBe('socket closed');
  });
});
