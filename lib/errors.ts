/**
 * Exceptions are for harness bugs and bad usage; model and tool failures are
 * observations the chart routes. Each subclass names one kind of failure.
 */
/** The mark of a rein error class: a registered symbol, the same in every copy of this module. */
const REIN_ERROR = Symbol.for('rein.error-class');

export class ReinError extends Error {
  /** Marks rein's error classes, in every copy of rein a process loads. */
  static readonly [REIN_ERROR] = true;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }

  /**
   * One process can hold two copies of rein (the rein command's bundle, and `rein` as a package it loads imports
   * it): an error of either copy's UsageError is a UsageError to both, by the name of its class or an ancestor's.
   */
  static override [Symbol.hasInstance]<T>(this: abstract new (...args: never[]) => T, value: unknown): value is T {
    for (let proto = typeof value === 'object' && value !== null ? Object.getPrototypeOf(value) : null; proto; proto = Object.getPrototypeOf(proto)) {
      const maker = (proto as { constructor?: { name?: string; [REIN_ERROR]?: boolean } }).constructor;
      // biome-ignore lint/complexity/noThisInStatic: `this` is the class on the right of instanceof (a subclass), not ReinError.
      if (maker === this || (maker?.[REIN_ERROR] === true && maker.name === this.name)) return true;
    }
    return false;
  }
}

/** Bad command-line usage or a bad rules file: exit code 2, nothing runs. */
export class UsageError extends ReinError {}

/** The run was stopped from outside (Ctrl+C); its state is saved and `rein resume` continues it. */
export class RunInterrupted extends ReinError {}

/** A headless run reached a call that needs an approval and nobody can answer: its state is saved; `rein approve` answers, `rein resume` continues. */
export class RunAwaitingApproval extends ReinError {
  /** What the run waits for, without how to answer it: a parent names its parked child with it. */
  readonly waitingFor: string;

  constructor(waitingFor: string, answer: string) {
    super(`${waitingFor}; ${answer}`);
    this.waitingFor = waitingFor;
  }
}

/** The model endpoint could not be used after retries: exit code 3. */
export class ModelEndpointError extends ReinError {}

/** A path that resolves outside the workspace (by `..`, an absolute path or a symlink). */
export class PathEscapeError extends ReinError {}

/** A file tool was pointed at something that does not exist or is not a regular file. */
export class MissingFileError extends ReinError {}

/** A path the sandbox policy hides from the agent (a credential path, a `.env` file, `permissions.hidden`). */
export class HiddenPathError extends ReinError {}
/** `rein eval --queue` / `rein worker` could not reach or log in to Redis: a usage error (exit code 2), nothing is enqueued. */
export class QueueConnectionError extends UsageError {}

/** A queue worker will not run a job (its task or rules do not match their hash, or it lacks what the job needs); the job goes back to the queue. */
export class JobRefused extends ReinError {}
