import type { ContextState } from '../context/context-state.js';
import type { AssistantMessage, ChatMessage, ToolCall } from '../context/messages.js';
import type { WorkingView } from '../context/working-view.js';
import type { TodoItem, ToolOutcome } from '../lib/tool-effect.js';
import type { BudgetName, EndCause, EndStatus, MachineNote } from '../lib/trace/trace-events.js';
import type { CallUsage, Usage } from '../lib/usage.js';
import type { PendingApproval } from '../rules/approvals/pending.js';
import type { RememberedDecision } from '../rules/approvals/remembered.js';
import type { Phase, Price } from '../rules/schema.js';
import type { ProgressKind } from '../rules/stall-rules.js';
import type { AgentUsage, ChargeEvent, Delegated } from './delegation/charge.js';
import type { ProgressMemory } from './stall/progress.js';

export type { EndStatus };

/** What a harness run is started with. */
export interface HarnessInput {
  task: string;
  testCmd: string;
  /** Model name, for the price table and the trace. */
  model?: string;
  /** A todo list left by an earlier run on the same workspace. */
  todo?: TodoItem[];
  /** The repository's own instructions (AGENTS.md), already labelled, for the task message. */
  repositoryInstructions?: string;
  /** Milliseconds of the time budget already used (a resumed run). */
  elapsedMs?: number;
  /** Tokens of the fixed part of every request (tool schemas), added to view estimates. */
  overheadTokens?: number;
  /** Approval decisions remembered for this repository (the trust store), judged like the run's own. */
  rememberedApprovals?: RememberedDecision[];
}

/** A call of this turn that was decided before it ran: by a rule, a remembered decision or an answer. */
export interface DecidedCall {
  verdict: 'allow' | 'deny';
  argsHash: string;
  /** `rule`, `remembered`, or who answered (terminal, page, command, hook, policy, timeout). */
  by: string;
  message?: string;
}

/** Where the run stands with approvals (machines/approval-handling.ts). */
export interface ApprovalState {
  /** The call waiting for an answer; saved with the state before anyone is asked. */
  pending: PendingApproval | null;
  /** This turn's calls decided before running, by call id. */
  decided: Record<string, DecidedCall>;
  /** The tool actor runs `calls[cursor..runUntil)`: up to the next call that needs an answer. */
  runUntil: number;
  /** Decisions remembered for the rest of the run (and the repository's, from the trust store). */
  remembered: RememberedDecision[];
  /** What the preToolUse hooks answered for this turn's calls, by call id. */
  hooked: Record<string, { verdict: 'allow' | 'deny' | 'ask'; message?: string }>;
}

/** One verification check's record since the run began. */
interface CheckFacts {
  /** Passing runs of the exact check command since the last edit. */
  passesSinceEdit: number;
  lastRunSeq: number;
  lastPassed: boolean | null;
}

/** Facts derived from tool effects; the phase guards and the gate compare them. */
export interface Facts {
  /** Tool calls seen so far; orders edits and test runs even within one turn. */
  seq: number;
  lastEditSeq: number;
  /** `seq` of the last run of a verification command, and of the last pass of the test command itself. */
  lastTestSeq: number;
  lastPassSeq: number;
  lastTestPassed: boolean | null;
  /** `seq`, `step` and test runs when the current phase was entered. */
  phaseStartSeq: number;
  phaseStartStep: number;
  phaseStartTestRuns: number;
  edits: number;
  testRuns: number;
  /** Verification runs in a row that failed. */
  failedRunsInRow: number;
  todo: TodoItem[];
  gateRefusals: number;
  /** Per verification check (`tests` and those in `verification.checks`). */
  checks: Record<string, CheckFacts>;
  /** Files an applied edit changed in the run, in the order they were first changed (for the gate's `filesChanged`). */
  editedPaths: string[];
  /** `seq` of each command's last passing run (exit code 0, not blocked, cut short or timed out), by its text trimmed (for `commandPassed`). */
  commandPasses: Record<string, number>;
}

/** What happened in the current turn; reset when a reply arrives. */
export interface TurnFacts {
  toolCalls: number;
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
  /** Nudges given in this stall; back to 0 as soon as anything new happens. */
  firings: number;
}

export interface StallState {
  counters: Record<string, StallCounter>;
  /** Short hashes of the last two actions, of the last result, and of the last failed action. */
  lastActions: string[];
  lastOutcome: string | null;
  lastFailedAction: string | null;
  /** The file last put back to an earlier version, for the editThrash nudge. */
  thrashFile: string | null;
  /** What the run has seen, to judge what is new. */
  memory: ProgressMemory;
  /** The progress this turn made, in order (for the trace and the visualizer). */
  progress: ProgressKind[];
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
  usage: CallUsage;
  /** Characters of the request, to calibrate the token estimate. */
  requestChars?: number;
  ms?: number;
  /** The provider's finish reason (`stop`, `tool_calls`, `length`, …), when it gave one. */
  finishReason?: string;
  /** The provider's id of the response and the model that answered, when it gave them (for the trace and the spans). */
  responseId?: string;
  responseModel?: string;
  /** Set when the calls were written as text and recovered by the reply intake (the shapes, the number of calls). */
  recovered?: { shapes: string[]; calls: number };
  /** What the model is told about this reply after its results: calls it wrote that were not run, and why. */
  notice?: string;
}

/** The tool actor's output: results in call order, stopping at a `finish` call. */
export interface ToolsOutput {
  results: ToolCallResult[];
  finish: { summary: string } | null;
}

export interface HarnessContext {
  task: string;
  testCmd: string;
  /** The repository's labelled instructions, given once in the task message (absent when there are none). */
  repositoryInstructions?: string;
  model: string;
  /** The model's price from the rules' table (zero for unknown models). */
  price: Price;
  phase: Phase;
  /** The phase the run was in before it entered this one (the phaseChange hooks' `from`). */
  previousPhase: Phase;
  step: number;
  recordLength: number;
  /** The working view sent to the model; rebuilt each turn, never persisted. */
  view: WorkingView | null;
  viewTokens: number;
  overheadTokens: number;
  contextState: ContextState;
  /** Set when the provider rejected the prompt as too long; the next pass compacts harder. */
  forceCompaction: boolean;
  /** Prompts the provider rejected as too long since the last reply. */
  promptRejections: number;
  calls: ToolCall[];
  /** Every tool-call id of the run so far: an id is never given twice, so each result pairs with exactly one call (absent in states saved before it was kept). */
  callIds?: string[];
  cursor: number;
  /** With postToolUse hooks: the call that just ran, held while its hooks run; its result is recorded with their notes. */
  heldResults: ToolsOutput | null;
  facts: Facts;
  turn: TurnFacts;
  stall: StallState;
  /** Messages (nudges, warnings) waiting for the end of the turn's tool results. */
  notices: string[];
  approvals: ApprovalState;
  usage: Usage;
  /** What delegated children spent (already in `usage`), by child; absent until one is charged. */
  delegated?: Delegated;
  /** Budgets already warned about (each warns once). */
  warned: Partial<Record<BudgetName, boolean>>;
  /** The time budget, and when its warning is due, in milliseconds of run time (the clock's delays read them). */
  timeLimitMs: number;
  timeWarningMs: number;
  elapsedMs: number;
  status: EndStatus | null;
  summary: string;
  /** Why the run ended, in one line, for anything but `done`. */
  reason: string;
  /** Who ended it, when an exit rule, the endpoint or the harness did (absent in states saved before it was recorded). */
  endedBy?: EndCause;
}

/** The machine's output when it reaches a final state. */
export interface HarnessOutput {
  status: EndStatus;
  steps: number;
  summary: string;
  usage: Usage;
  reason: string;
  /** Who ended it: an exit rule (`failed` then means a rule's verdict, not an endpoint failure), the endpoint, the harness. */
  endedBy?: EndCause;
  /** With children: the usage split by agent (`main` first); the parts add up to `usage`. */
  agents?: AgentUsage[];
}

/** Emitted for the session: messages to append to the record, and trace notes. */
export type HarnessEmitted = { type: 'record.append'; messages: ChatMessage[] } | { type: 'harness.note'; note: MachineNote };

/** Events sent to the harness from outside: the clock the machine arms itself, and a resumed run's re-arm. */
export type HarnessEvent = { type: 'clock.restart' } | { type: 'clock.warning' } | { type: 'clock.expired' } | ChargeEvent;
