import { fromPromise } from 'xstate';
import type { ContextState, SummaryNote } from '../context/context-state.js';
import type { ChatMessage, ToolCall } from '../context/messages.js';
import { ReinError } from '../lib/errors.js';
import type { ApprovalPolicy } from '../rules/approvals/evaluate.js';
import type { ApprovalDecision, PendingApproval } from '../rules/approvals/pending.js';
import type { Phase } from '../rules/schema.js';
import type { ModelReply, ToolsOutput } from './types.js';

/** What the model actor is invoked with. */
export interface ModelInput {
  messages: readonly ChatMessage[];
  maxCompletionTokens: number;
  step: number;
}

/** What the tool actor is invoked with: the calls still to run this turn. */
export interface ToolsInput {
  calls: ToolCall[];
  /** Tools allowed in the current phase; `all` or a list of names. */
  allowed: 'all' | string[];
  /** Tools the list allows but that are placed in other phases only (`tools.phases`): refused here like any other. */
  placedElsewhere?: string[];
  phase: Phase;
  step: number;
  /** Index of `calls[0]` within the turn (for journaling). */
  offset: number;
  /** Calls denied before running (by an approval rule or an answer), by call id: they get this text as their result and never run. */
  denied?: Record<string, string>;
  /** The phase's approval rules, when it has any: a call's real path is judged by them too before it runs. */
  approvals?: ApprovalPolicy;
  /** Calls a person allowed (terminal, page, rein approve, remembered), by id: the built-in deny list's overridable rules let them run. */
  approvedByPerson?: string[];
}

/** What the hooks actor is invoked with: the moment, the call's tool (for the hooks' tool patterns), the event sent on stdin. */
export interface HooksInput {
  moment: 'preToolUse' | 'postToolUse' | 'phaseChange' | 'beforeFinish' | 'runEnd';
  tool?: string;
  /** After a call: whether it succeeded (Claude Code's PostToolUse) or failed (PostToolUseFailure). */
  outcome?: 'success' | 'failure';
  step: number;
  event: Record<string, unknown>;
}

/** The combined answer of a moment's hooks (actors/hooks/hooks-actor.ts combineOutcomes). */
export interface HooksOutput {
  decision: 'allow' | 'deny' | 'ask' | null;
  message?: string;
  notes: string[];
  /** Before a call: the arguments a hook wants it run with (Claude Code's updatedInput, in rein's names); the rules judge them. */
  updatedArgs?: Record<string, unknown>;
}

/** What the approver actor is invoked with: the saved pending call, and how long an answer may take. */
export interface ApproverInput {
  pending: PendingApproval;
  timeoutMs: number;
}

/** What the context-manager actor is invoked with. */
export interface ContextInput {
  contextState: ContextState;
  force: boolean;
  overheadTokens: number;
}

/** The context manager's decision, as the machine receives it. */
export interface ContextOutput {
  contextState: ContextState;
  messages: ChatMessage[];
  tokens: number;
  action: 'none' | 'elided' | 'summarize' | 'overflow';
  before: { chars: number; tokens: number };
  chars: number;
}

export interface SummaryInput {
  contextState: ContextState;
  todo: { task: string; done: boolean }[];
}

export interface SummaryOutput {
  summary: SummaryNote;
  /** Characters of the view messages the summary replaces, and of the summary itself. */
  foldedChars: number;
  summaryChars: number;
}

/** A model endpoint rejected the prompt as longer than its context window. */
export class ContextLengthError extends ReinError {
  /** The window the provider says it has, when its message states one ("maximum context length is 8192 tokens"). */
  readonly windowTokens: number | undefined;

  constructor(message: string) {
    super(message);
    const stated = /(?:maximum context length|context window|context length)[^\d]{0,40}(\d{3,7})/i.exec(message);
    this.windowTokens = stated ? Number(stated[1]) : undefined;
  }
}

const missing = (name: string) => () =>
  Promise.reject(new ReinError(`The harness was started without a "${name}" actor; provide it with machine.provide({ actors: { ${name} } }).`));

/** Placeholders declared in `setup()`; a run provides the real actors, tests provide scripted ones. */
export const actorPlaceholders = {
  model: fromPromise<ModelReply, ModelInput>(missing('model')),
  tools: fromPromise<ToolsOutput, ToolsInput>(missing('tools')),
  contextManager: fromPromise<ContextOutput, ContextInput>(missing('contextManager')),
  summarizer: fromPromise<SummaryOutput, SummaryInput>(missing('summarizer')),
  approver: fromPromise<ApprovalDecision, ApproverInput>(missing('approver')),
  hooks: fromPromise<HooksOutput, HooksInput>(missing('hooks')),
};
