import type { AssistantMessage, ChatMessage, ToolCall } from '../context/messages.js';
import type { ContextState } from '../context/context-state.js';
import type { WorkingView } from '../context/working-view.js';
import type { TodoItem, ToolOutcome } from '../tools/types.js';
import type { Phase } from '../rules/schema.js';

/** Every way a run ends. */
export type EndStatus = 'done' | 'step_limit' | 'timeout' | 'budget' | 'stalled' | 'failed';

/** Token and cost totals of a run. */
export interface Usage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  costUsd: number;
}

/** What a harness run is started with. */
export interface HarnessInput {
  task: string;
  testCmd: string;
  /** Model name, for the price table and the trace. */
  model?: string;
  /** A todo list left by an earlier run on the same workspace. */
  todo?: TodoItem[];
  /** Milliseconds of the time budget already used (a resumed run). */
  elapsedMs?: number;
  /** Tokens of the fixed part of every request (tool schemas), added to view estimates. */
  overheadTokens?: number;
}

/** Facts derived from tool effects; the phase guards and the gate compare them. */
export interface Facts {
  /** Tool calls seen so far; orders edits and test runs even within one turn. */
  seq: number;
  lastEditSeq: number;
  lastTestSeq: number;
  lastPassSeq: number;
  lastTestPassed: boolean | null;
  /** `seq` when the current phase was entered. */
  phaseStartSeq: number;
  edits: number;
  testRuns: number;
  todo: TodoItem[];
  gateRefusals: number;
}

/** What happened in the current turn; reset when a reply arrives. */
export interface TurnFacts {
  edited: boolean;
  testRan: boolean;
  testPassed: boolean | null;
  todoWritten: boolean;
  finishRefused: boolean;
}

/** One stall rule's counter: how far the pattern has run, and how often it was nudged. */
export interface StallCounter {
  count: number;
  /** Highest `count` reached this turn; guards compare it so a pattern inside one turn is seen. */
  peak: number;
  /** Nudges given since the rule's pattern last broke. */
  firings: number;
}

export interface StallState {
  counters: Record<string, StallCounter>;
  /** Short hashes of the last two actions and of their results. */
  lastActions: string[];
  lastOutcome: string | null;
  lastFailedAction: string | null;
  /** Successful edits per file since the last passing test run. */
  editsPerFile: Record<string, number>;
  /** Path with most edits, for the nudge text. */
  busiestFile: string | null;
  /** Rule that fired this turn, if any. */
  fired: string | null;
}

/** One executed tool call. */
export interface ToolCallResult {
  id: string;
  name: string;
  args: unknown;
  outcome: ToolOutcome;
  ms: number;
}

/** The model actor's output. */
export interface ModelReply {
  message: AssistantMessage;
  usage: { promptTokens: number; completionTokens: number; cachedTokens: number };
  /** Characters of the request, to calibrate the token estimate. */
  requestChars?: number;
  ms?: number;
}

/** The tool actor's output: results in call order, stopping at a `finish` call. */
export interface ToolsOutput {
  results: ToolCallResult[];
  finish: { summary: string } | null;
}

export interface HarnessContext {
  task: string;
  testCmd: string;
  model: string;
  phase: Phase;
  step: number;
  recordLength: number;
  /** The working view sent to the model; rebuilt each turn, never persisted. */
  view: WorkingView | null;
  viewTokens: number;
  overheadTokens: number;
  contextState: ContextState;
  /** Set when the provider rejected the prompt as too long; the next pass compacts harder. */
  forceCompaction: boolean;
  /** Prompts the provider rejected as too long since the last reply; after a few the run fails instead of looping. */
  promptRejections: number;
  calls: ToolCall[];
  cursor: number;
  facts: Facts;
  turn: TurnFacts;
  stall: StallState;
  /** Messages (nudges, warnings) waiting for the end of the turn's tool results. */
  notices: string[];
  usage: Usage;
  warned: { time: boolean; steps: boolean };
  elapsedMs: number;
  status: EndStatus | null;
  summary: string;
  /** Why the run ended, in one line, for anything but `done`. */
  reason: string;
}

/** The machine's output when it reaches a final state. */
export interface HarnessOutput {
  status: EndStatus;
  steps: number;
  summary: string;
  usage: Usage;
  reason: string;
}

/** Emitted for the session: messages to append to the record, and trace notes. */
export type HarnessEmitted =
  | { type: 'record.append'; messages: ChatMessage[] }
  | { type: 'harness.note'; kind: string; data: Record<string, unknown> };

/** Events sent to the harness from outside: the clock the machine arms itself, and a resumed run's re-arm. */
export type HarnessEvent = { type: 'clock.restart' } | { type: 'clock.warning' } | { type: 'clock.expired' };
