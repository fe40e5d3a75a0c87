/**
 * A recorded run, as the replay reads it: the actions an agent took, each
 * mapped onto rein's tools, with what the agent saw back. Every input format
 * (replay/formats/) produces this one type; `replayRun` consumes it.
 */

/** rein's tool a recorded action maps onto; `none` is a reply without a usable action. */
export type RecordedTool = 'read_file' | 'grep' | 'edit_file' | 'run' | 'update_todo' | 'finish' | 'none';

/** One recorded action and its result. */
export interface RecordedStep {
  tool: RecordedTool;
  /** Arguments in rein's tool schema (`path`, `pattern`, `command`, `old`/`new`, …). */
  args: Record<string, unknown>;
  /** What the agent saw back (for a `none` step, the harness's reply to it, if any). */
  output: string;
  /** A command's exit code, when known (`run`). */
  exitCode?: number | null;
  /** False when a read, search or command failed as a call (no such file, bad arguments). */
  ok?: boolean;
  /** For `edit_file`: whether the edit took effect, its kind (`create`, `replace`, `insert`, `sed`, `undo`, …), and the file's content hashes around it when the recording has them (else they are reconstructed from the edits, testing/edit-states.ts). */
  edit?: { applied: boolean; kind?: string; before?: string; after?: string };
  /** Todo items, for `update_todo`. */
  todo?: Array<{ task: string; done: boolean }>;
  /** The agent's original action, shortened, for reports. */
  raw?: string;
  /** Set when the format's mapping table had no entry for the action (it is replayed as `run`, and counted). */
  unmapped?: string;
}

/** One recorded run. */
export interface RecordedRun {
  /** Unique within a set: `source/instance` or the file name. */
  id: string;
  system?: string;
  model?: string;
  instance?: string;
  /** Whether the run resolved its task; null when unknown. */
  resolved: boolean | null;
  /** How the recorded run ended: `submitted`, `cost_limit`, `step_limit`, `context_limit`, `time_limit`, `format_error`, `error`. */
  exitStatus?: string;
  /** The run's verification command, when known (a `run` step containing it counts as a test run). */
  testCmd?: string;
  steps: RecordedStep[];
  /** Where it was read from. */
  origin?: { file: string; line?: number };
}
