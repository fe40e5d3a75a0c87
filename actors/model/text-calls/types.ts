/** Why a call the reply wrote was not run: the model is told, and asked to write it again if it meant it. */
export type NotRunReason = 'reasoning' | 'echo' | 'inline' | 'position' | 'after-result' | 'mixed';

/** A call recovered from a reply's text: the arguments are a value when they decoded, else the raw text. */
interface RecoveredCall {
  name: string;
  arguments: unknown;
  /** The id the model wrote with the call (Kimi's `functions.f:0`, Mistral's `[CALL_ID]`, Cohere's `tool_call_id`). */
  id?: string;
  /** Set when the arguments needed a lenient parse, or would not parse: the text as the model wrote it. */
  repairedFrom?: string;
  /** How it was written: the delimiter that started it and the argument encoding (`<tool_call>+json`, `[TOOL_CALLS]+json`, `bare+pythonic`). */
  format: string;
}

/** Calls found in a reply's text, the text left once they are cut out, and what was seen but not run. */
export interface Recovery {
  calls: RecoveredCall[];
  /** The content outside the calls (trimmed), or null when nothing is left. */
  content: string | null;
  /** The formats the calls came in, each once, in order of appearance. */
  formats: string[];
  /** Calls in an untagged form (bare JSON, a Python list, a fence) naming no tool of the run: left in the text. */
  ignored: Array<{ format: string; name: string; didYouMean?: string }>;
  /** Calls to the run's tools that were not run, and why. */
  notRun: Array<{ format: string; name: string; why: NotRunReason }>;
}
