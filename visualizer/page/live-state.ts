import type { InspectMessage } from '../server/page-data.js';

/** One event the harness received, as the inspection API reported it. */
interface ReceivedEvent {
  type: string;
  source?: string;
  t: number;
}

const RECENT = 5;

/**
 * What XState's inspection stream says about the run right now: the
 * harness's state, the actors it is waiting on (model, tools, context
 * manager) and the last events it received.
 *
 * @example const live = new LiveState(); live.apply({ kind: 'snapshot', root: true, state: 'build.think', status: 'active', ... });
 */
export class LiveState {
  state: string | null = null;
  status: string | null = null;
  step: number | null = null;
  received = 0;
  readonly recent: ReceivedEvent[] = [];
  private readonly running = new Map<string, { name: string; since: number }>();

  apply(message: InspectMessage): void {
    if (message.kind === 'snapshot') {
      if (message.root) {
        if (message.state !== undefined) this.state = message.state;
        this.status = message.status;
        if (message.step !== undefined) this.step = message.step;
        if (message.status !== 'active') this.running.clear();
      } else if (message.status !== 'active') this.running.delete(message.actor);
    } else if (message.kind === 'actor' && !message.root) {
      this.running.set(message.actor, { name: message.name, since: message.t });
    } else if (message.kind === 'event' && message.root) {
      this.received++;
      this.recent.unshift({ type: message.type, ...(message.source ? { source: message.source } : {}), t: message.t });
      this.recent.length = Math.min(this.recent.length, RECENT);
    }
  }

  /** Names of the actors still running (invoke ids: `model`, `tools`, …). */
  inFlight(): Set<string> {
    return new Set([...this.running.values()].map((actor) => actor.name));
  }

  /** The longest-running actor and since when (seconds since the epoch). */
  oldest(): { name: string; since: number } | null {
    let oldest: { name: string; since: number } | null = null;
    for (const actor of this.running.values()) if (!oldest || actor.since < oldest.since) oldest = actor;
    return oldest;
  }
}
