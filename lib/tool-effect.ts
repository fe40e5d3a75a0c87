/**
 * What tool calls produce, as plain data shared by every layer: the tools
 * write it, the machine derives its facts from it, the trace records it.
 */

/** One entry of the agent's todo list (seed component 7: plan and state). */
export interface TodoItem {
  task: string;
  done: boolean;
}

/** Where a background job is: still running, exited by itself, stopped by the harness, or lost (its harness died). */
export type JobState = 'running' | 'exited' | 'stopped' | 'lost';

/**
 * A background job (`run` with `background: true` or a trailing `&`; the `job`
 * tool). The stall detector can tell polling without progress (`newBytes: 0`
 * while `running`) from a job that is producing output.
 */
export interface JobEffect {
  kind: 'job';
  /** `start` (run), `read`, `stop` or `list` (job). */
  action: 'start' | 'read' | 'stop' | 'list';
  /** The job's id; null for `list` and for a job that could not start. */
  id: string | null;
  command: string;
  /** After the call; null for `list`. */
  state: JobState | null;
  /** Exit code, or 128 + signal number, once it exited by itself; else null. */
  exitCode: number | null;
  /** Its log file ('' for `list`). */
  log: string;
  /** Bytes of output this call showed that earlier calls had not (0: nothing new). */
  newBytes: number;
  /** Jobs of the run still running after the call. */
  running: number;
}

/**
 * What a tool call did, as plain data. The machine derives its facts
 * (last edit, last test run, stall counters) from these, never from text.
 */
export type ToolEffect =
  | { kind: 'read'; path: string }
  | { kind: 'search'; pattern: string }
  /** `before`/`after`: short hashes of the file's content around an applied edit (new version or an old one again). */
  | {
      kind: 'edit';
      path: string;
      applied: boolean;
      before?: string;
      after?: string;
      /** More paths the same call changed (a `delegate` call: its children's edits and the files their commands changed). */
      also?: string[];
    }
  | {
      kind: 'command';
      command: string;
      exitCode: number | null;
      timedOut: boolean;
      blocked: boolean;
      interrupted?: boolean /** The deny rule's reason, for a blocked command. */;
      blockedBy?: string;
    }
  | JobEffect
  | { kind: 'todo'; items: TodoItem[] }
  | { kind: 'finish'; summary: string }
  | McpEffect
  | { kind: 'none' };

/** A call to an MCP server's tool (`mcp__<server>__<tool>`): which server and tool, and how it ended. */
export interface McpEffect {
  kind: 'mcp';
  server: string;
  /** The tool's name on the server. */
  tool: string;
  outcome: 'ok' | 'error' | 'timeout' | 'crashed' | 'unavailable' | 'refused' | 'interrupted';
  /** Annotated read-only by the server (a crashed call was retried once). */
  readOnly: boolean;
}

/** The result of one tool call: the observation text and its effect. */
export interface ToolOutcome {
  /** Text that becomes the tool message the model sees. */
  content: string;
  /** False when the call failed (bad arguments, missing file, thrown error). */
  ok: boolean;
  effect: ToolEffect;
}

/** The kinds of tool effect. */
export type EffectKind = ToolEffect['kind'];
/** The effect of one kind, narrowed. */
export type EffectOf<Kind extends EffectKind> = Extract<ToolEffect, { kind: Kind }>;

/**
 * One reader per kind of effect: a map of these is how a layer reads effects,
 * so a new kind fails `tsc` in every map until each reader handles it (a
 * `switch` with a default would let it fall through silently).
 */
export type EffectReaders<Result> = { readonly [Kind in EffectKind]: (effect: EffectOf<Kind>) => Result };

/**
 * An effect read through the map's reader for its kind.
 *
 * @example readEffect(effect, { edit: (edit) => edit.path, command: (run) => run.command, … })
 */
export function readEffect<Result>(effect: ToolEffect, readers: EffectReaders<Result>): Result {
  // Indexing a mapped type by a union loses the link between the kind and its reader's argument.
  return (readers[effect.kind] as (effect: ToolEffect) => Result)(effect);
}

// Every kind at run time; a Record over the kinds, so a new kind fails `tsc` here too until it is listed.
const KINDS: Readonly<Record<EffectKind, true>> = {
  read: true,
  search: true,
  edit: true,
  command: true,
  job: true,
  todo: true,
  finish: true,
  mcp: true,
  none: true,
};

/** True for a kind of effect this rein writes (a trace from another rein may hold others). */
export function isEffectKind(kind: unknown): kind is EffectKind {
  return typeof kind === 'string' && Object.hasOwn(KINDS, kind);
}

/**
 * One reader per kind of effect read back as data (a trace line, maybe from
 * another rein's run, whose fields are checked as they are read): exhaustive
 * like `EffectReaders`, so a new kind fails `tsc` until each reader handles it.
 */
export type EffectDataReaders<Result> = { readonly [Kind in EffectKind]: (effect: Readonly<Record<string, unknown>>) => Result };

/**
 * An effect from a trace read through the map's reader for its kind; a kind
 * this rein does not know goes to `unknown` (it is named, not dropped).
 *
 * @example readEffectData(line.effect, { command: (run) => String(run.exitCode), … }, (kind) => kind)
 */
export function readEffectData<Result>(
  effect: Readonly<Record<string, unknown>>,
  readers: EffectDataReaders<Result>,
  unknown: (kind: string, effect: Readonly<Record<string, unknown>>) => Result,
): Result {
  return isEffectKind(effect.kind) ? readers[effect.kind](effect) : unknown(typeof effect.kind === 'string' ? effect.kind : '', effect);
}
