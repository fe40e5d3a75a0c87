import { type AnyTransitionDefinition, createActor, fromPromise } from 'xstate';
import type { HarnessMachine } from '../../machines/harness-machine.js';
import { microstepTransitions, stateLabel } from '../../machines/introspection.js';
import type { Rules } from '../../rules/schema.js';
import { type CoverageReport, transitionKeys, type Witness } from './explore.js';

type ScriptedEvent = Witness['path'][number];

/** The invoked actors a path scripts: each answers with the output (or error) the path gives it next. */
const ACTORS = ['model', 'tools', 'contextManager', 'summarizer', 'approver', 'hooks'] as const;
/** Invoke ids (the hooks actor is invoked as preToolHook, postToolHook, phaseHook, finishHook and runEndHook). */
type ActorId = string;

/** Microtask turns given to XState to settle after each delivery (promise → done event → eventless transitions). */
const SETTLE_TURNS = 8;

/**
 * Drives a path through the machine with scripted actors, provided with
 * `machine.provide({ actors })`: every `xstate.done.actor.<id>` or
 * `xstate.error.actor.<id>` in the path becomes the resolution of that
 * invoked actor (which must be running at that point), and every other event
 * is sent. Resolves to the transitions XState took on the final event.
 *
 * @example const taken = await replayWithScriptedActors(machine, witness);
 */
export async function replayWithScriptedActors(machine: HarnessMachine, witness: Witness): Promise<{ taken: string[]; problem: string | null }> {
  const pending = new Map<ActorId, { resolve(value: unknown): void; reject(error: unknown): void }>();
  const scripted = Object.fromEntries(
    ACTORS.map((id) => [
      id,
      fromPromise(
        ({ self }) =>
          new Promise((resolve, reject) => {
            // Keyed by the invoke id, which done events name (src and id differ for the hooks actor).
            pending.set(self.id || id, { resolve, reject });
          }),
      ),
    ]),
  );
  // Scripted actors stand in for the machine's placeholders, whose logic types provide() checks exactly.
  const provided = machine.provide({ actors: scripted as never });
  const keys = transitionKeys(provided);
  let recording = false;
  const taken: string[] = [];
  // A witness's seed and events are plain data; XState types them by the machine's own unions.
  const start = witness.seed ? provided.resolveState(witness.seed as never) : undefined;
  const actor = createActor(provided, {
    input: { task: 'task', testCmd: 'npm test' } as never,
    ...(start ? { snapshot: start as never } : {}),
    inspect: (inspection) => {
      if (recording && inspection.type === '@xstate.microstep' && inspection.actorRef === actor)
        for (const definition of microstepTransitions(inspection)) taken.push(keys.get(definition as AnyTransitionDefinition) ?? '(unknown)');
    },
  });
  actor.subscribe({ error: () => undefined });
  actor.start();
  const settle = async () => {
    for (let turn = 0; turn < SETTLE_TURNS; turn++) await Promise.resolve();
  };
  const deliver = async (event: ScriptedEvent): Promise<string | null> => {
    const invoked = /^xstate\.(done|error)\.actor\.(\w+)$/.exec(event.type);
    if (!invoked) {
      actor.send(event as never);
    } else {
      const id = invoked[2] as ActorId;
      const waiting = pending.get(id);
      if (!waiting) return `no ${id} actor was running at ${stateLabel(actor.getSnapshot().value)} for ${event.type}`;
      pending.delete(id);
      if (invoked[1] === 'done') waiting.resolve(event.output);
      else waiting.reject(event.error);
    }
    await settle();
    return null;
  };
  await settle();
  try {
    for (const event of witness.path) {
      if (event.type === 'xstate.init') continue;
      const problem = await deliver(event);
      if (problem) return { taken, problem };
    }
    recording = true;
    const problem = await deliver(witness.event);
    return { taken, problem };
  } finally {
    actor.stop();
  }
}

/**
 * Replays every covered transition's witness path with scripted actors and
 * checks XState takes that transition: the coverage's pure exploration,
 * confirmed by running the machine as a run would. Returns the keys that did
 * not replay, each with why.
 *
 * @example const failures = await confirmWithScriptedActors(machine, rules, coverTransitions(machine, rules));
 */
export async function confirmWithScriptedActors(machine: HarnessMachine, _rules: Rules, report: CoverageReport): Promise<Map<string, string>> {
  const failures = new Map<string, string>();
  for (const [key, witness] of report.witnesses) {
    const { taken, problem } = await replayWithScriptedActors(machine, witness);
    if (problem) failures.set(key, problem);
    else if (!taken.includes(key)) failures.set(key, `replayed with scripted actors, XState took ${taken.join('; ') || 'nothing'}`);
  }
  return failures;
}
