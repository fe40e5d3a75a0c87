/**
 * What tool calls produce, as plain data shared by every layer: the tools
 * write it, the machine derives its facts from it, the trace records it.
 */

/** One entry of the agent's todo list (seed component 7: plan and state). */
export interface TodoItem {
  task: string;
  done: boolean;
}

/**
 * What a tool call did, as plain data. The machine derives its facts
 * (last edit, last test run, stall counters) from these, never from text.
 */
export type ToolEffect =
  | { kind: 'read'; path: string }
  | { kind: 'search'; pattern: string }
  /** `before`/`after`: short hashes of the file's content around an applied edit (new version or an old one again). */
  | { kind: 'edit'; path: string; applied: boolean; before?: string; after?: string }
  | { kind: 'command'; command: string; exitCode: number | null; timedOut: boolean; blocked: boolean; interrupted?: boolean; /** The deny rule's reason, for a blocked command. */ blockedBy?: string }
  | { kind: 'todo'; items: TodoItem[] }
  | { kind: 'finish'; summary: string }
  | { kind: 'none' };

/** The result of one tool call: the observation text and its effect. */
export interface ToolOutcome {
  /** Text that becomes the tool message the model sees. */
  content: string;
  /** False when the call failed (bad arguments, missing file, thrown error). */
  ok: boolean;
  effect: ToolEffect;
}
