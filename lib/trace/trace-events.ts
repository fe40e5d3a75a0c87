import type { ProgressKind } from '../progress-kinds.js';
import type { JobState, TodoItem, ToolEffect } from '../tool-effect.js';
import type { CallUsage, Usage } from '../usage.js';

/**
 * The trace format: one JSON line per event (seed component 10). Every
 * writer (the machine's notes, the session, the inspection tracer, the model
 * actor) and every reader (status line, visualizer, eval metrics, resume,
 * telemetry) uses these types. Readers must also accept lines of kinds and
 * fields they do not know (traces from other rein versions): see `TraceRecord`.
 */
export const TRACE_VERSION = 1;

export type EndStatus = 'done' | 'step_limit' | 'timeout' | 'budget' | 'stalled' | 'failed';

/**
 * Who ended a run, when more than its status says: an exit rule of the rules file (`"to": "failed"`, or any other end
 * it names), the model endpoint (its failure after retries), or the harness itself (an actor that failed: a bug).
 */
export type EndCause = 'rule' | 'endpoint' | 'harness';

/** The run began: what it was asked, with what, where. */
export interface StartEvent {
  kind: 'start';
  version: number;
  task: string;
  testCmd: string;
  model: string;
  endpoint: string;
  workspace: string;
  runDir: string;
  /** One line saying how commands run (sandboxed or not, what they can read). */
  sandbox: string;
  /** What commands can see: the paths made visible and hidden (absent in traces from before the visibility policy). */
  visibility?: unknown;
  tools: string[];
  rules: unknown;
  /** Where the rules in effect came from: the preset, the rules file(s), command-line flags (absent in older traces). */
  rulesFrom?: readonly string[];
  [extra: string]: unknown;
}

/** A killed run continued from its saved state. */
export interface ResumeEvent {
  kind: 'resume';
  /** The state the run goes on from: the checkpoint it was last saved at. */
  fromState: string;
  /**
   * The state the stopped process had reached, from its trace, when it is past the checkpoint (a run killed while
   * the model answered the first turn of build goes on from plan.act, and takes the same step into build again).
   */
  stoppedIn?: string;
  recordLength: number;
  elapsedMs: number;
  note?: string;
  /** `prompted`: the run had switched to prompted tool calling before it stopped, and goes on in it. */
  toolCalling?: 'prompted';
  /** This run is a fork (`rein fork`): the run it branched from and the step, whose state it starts from. */
  forkOf?: { runDir: string; step: number };
  /** The process that writes the trace from here on (a follower stops when it is gone). */
  pid?: number;
  host?: string;
}

export interface InterruptedEvent {
  kind: 'interrupted';
  state: string;
}
export interface CrashEvent {
  kind: 'crash';
  error: string;
}

/** One machine microstep: the state left and entered, the event, the guard that decided and the actions taken. */
export interface TransitionEvent {
  kind: 'transition';
  from: string;
  to: string;
  /** The event being processed: for an eventless (`always`) transition, the one that started the macrostep. */
  event: string;
  /** Set when the transition taken is eventless: it fired because its guard held after the event's own transition. */
  eventless?: true;
  /** The deciding guard as a readable label, e.g. `phaseSteps(min=3)` or `all(testRun, phaseSteps(min=2))`. */
  guard?: string;
  actions?: string[];
  /** For an actor's failure (`xstate.error.actor.*`): what failed, once per macrostep. */
  error?: string;
}

/** One model reply. */
export interface ModelEvent {
  kind: 'model';
  step: number;
  content: string | null;
  tool_calls: unknown[];
  usage: CallUsage;
  ms: number | null;
  finishReason?: string;
  /** The provider's response id and the model that answered, when the endpoint gave them. */
  responseId?: string;
  responseModel?: string;
  /** Set when the reply's calls were written as text and recovered (`calls_recovered` has the details). */
  recovered?: { shapes: string[]; calls: number };
}

/** How a call's arguments were made into JSON object text (see `arguments_repaired`). */
export type ArgumentRepairKind = 'object' | 'double_encoded' | 'lenient' | 'missing';

/** A reply had no `tool_calls`, but its text held calls (or things that read as calls): what ran, what was left as text and what the model was asked about. */
export interface CallsRecoveredEvent {
  kind: 'calls_recovered';
  step: number;
  /** The formats found, in order of appearance: the delimiter that started the calls and their argument encoding (`<tool_call>+json`, `[TOOL_CALLS]+json`, `to=functions.+json`, `python+pythonic`). */
  shapes: string[];
  /** The calls, with the id the model wrote beside it when it wrote one (the record's id is in the `call_ids` line when rein made it). */
  calls: Array<{ id?: string; name: string; shape: string }>;
  /** Calls in an unmarked form naming no tool of the run: left in the text. */
  ignored?: Array<{ shape: string; name: string; didYouMean?: string }>;
  /** Calls to the run's tools that were not run, and why (in reasoning, repeated from a tool result, inside a sentence, followed by text, after a made-up result); the model was told. */
  notRun?: Array<{ shape: string; name: string; why: string }>;
  /** The reply's content as the model wrote it (the record keeps only the prose outside the blocks), cut to 20,000 characters head and tail. */
  raw: string;
}

/** rein gave calls of a reply other ids than the provider's (none came, the endpoint would refuse it back, or it was used before); both are kept here. */
export interface CallIdsEvent {
  kind: 'call_ids';
  step: number;
  calls: Array<{ index: number; given: string | null; id: string; why: 'missing' | 'invalid' | 'duplicate' }>;
}

/** A call's arguments were repaired before the tool saw them; `original` is what the model sent (cut to 2,000 characters). */
export interface ArgumentsRepairedEvent {
  kind: 'arguments_repaired';
  step: number;
  id: string;
  name: string;
  repair: ArgumentRepairKind;
  original: string;
}

/** `model.toolCalling: auto` switched to prompted tool calling for the rest of the run (written once). */
export interface ToolCallingEvent {
  kind: 'tool_calling';
  step: number;
  mode: 'prompted';
  from: 'native';
  why: string;
}

/** The repository's own instructions (AGENTS.md) were read and given to the model, labelled as the repository's words. */
export interface RepositoryInstructionsEvent {
  kind: 'repository_instructions';
  path: string;
  /** Bytes of the file, and characters of what the model got (capped at `repositoryInstructions.maxChars`). */
  bytes: number;
  givenChars: number;
  truncated: boolean;
  /** Secrets masked in it before the model saw it (absent in older traces). */
  masked?: number;
}

/** One executed tool call; `result` is cut to 2,000 characters, head and tail. */
export interface ToolEvent {
  kind: 'tool';
  step: number;
  id: string;
  name: string;
  args: unknown;
  ok: boolean;
  ms: number;
  effect: ToolEffect;
  result: string;
}

/** A model request that failed and is tried again. */
export interface RetryEvent {
  kind: 'retry';
  error: string;
  attempt: number;
  delayMs: number;
}

/** The context manager changed the working view (or could not). */
export type ContextEvent =
  | {
      kind: 'context';
      action: 'elided' | 'summarize' | 'overflow';
      before: { chars: number; tokens: number };
      after: { chars: number; tokens: number };
      step: number;
    }
  | { kind: 'context'; action: 'summarized'; foldedChars: number; summaryChars: number; through: number; step: number }
  | { kind: 'context'; action: 'summary_failed'; error: string; step: number }
  | { kind: 'context'; action: 'provider_rejected_length'; rejectedTokens: number; windowCap: number; attempt: number; step: number };

/** The verification gate judged a finish call. */
export type FinishEvent =
  | { kind: 'finish'; allowed: true; step: number; summary: string; gate: boolean }
  | { kind: 'finish'; allowed: false; step: number; refusals: number; why: string; guard: string };

/** A stall rule fired and the model was nudged. */
export interface StallEvent {
  kind: 'stall';
  step: number;
  rule: string;
  limit: number;
  /** The rule's counter when it fired. */
  count: number;
  /** Nudges in this stall so far, this one included; the run ends after `maxNudges` if nothing new happens. */
  firings: number;
  maxNudges: number;
  message: string;
  /** What the rule saw, for people: "8 reads and searches since the last change …". */
  reason: string;
}

/**
 * What a turn's tool results made new, as the stall detector judged it: each
 * result that made progress and which kinds (a result that made none is left
 * out, and a turn with none writes no line). Any progress starts a stall's
 * nudges over.
 */
export interface ProgressEvent {
  kind: 'progress';
  step: number;
  results: Array<{ id: string; name: string; kinds: ProgressKind[] }>;
}

export type BudgetName = 'steps' | 'time' | 'tokens' | 'cost';

/** A budget passed its warning share. */
export interface BudgetWarningEvent {
  kind: 'budget_warning';
  budget: BudgetName;
  step: number;
  /** The warning share, e.g. 0.75. */
  share: number;
  used: number;
  limit: number;
}

/** A rule action ran (phase entry or exit). */
export interface RuleActionEvent {
  kind: 'rule_action';
  action: string;
  step: number;
  notices?: string[];
  problem?: string;
  [field: string]: unknown;
}

/** The run ended. */
export interface EndEvent {
  kind: 'end';
  status: EndStatus;
  reason: string;
  steps: number;
  summary: string;
  usage: Usage;
  /** For `stalled`: the rule that persisted. */
  rule?: string;
  /** Who ended it, when an exit rule, the endpoint or the harness did (absent in traces from before it was recorded). */
  by?: EndCause;
  /** With delegated children: the usage split by agent (`main` first), adding up to `usage`. */
  agents?: Array<{ agent: string; runs: number; steps: number; usage: Usage }>;
}

/** A background job started, ended, or was found lost on resume. */
export interface JobEvent {
  kind: 'job';
  id: string;
  command: string;
  state: JobState;
  /** Exit code, or 128 + signal number; null while running or when lost. */
  exitCode: number | null;
  pgid: number | null;
  /** Its log file. */
  log: string;
  startedAt: string;
  endedAt?: string;
  /** Why it ended when rein ended it. */
  cause?: string;
}

/** Secrets in a known format were masked in a tool result before the model, the record or the journal saw it. */
export interface SecretsMaskedEvent {
  kind: 'secrets_masked';
  step: number;
  /** The tool call's id and name. */
  id: string;
  name: string;
  /** What was found where (1-based line and column), never the secret. */
  findings: Array<{ kind: string; line: number; column: number }>;
}

/** A tool call waits for an approval (its request is in the saved state). */
export interface ApprovalAskEvent {
  kind: 'approval_ask';
  step: number;
  phase: string;
  callId: string;
  tool: string;
  /** The arguments as the model sent them (secrets masked like every trace line). */
  args: unknown;
  argsHash: string;
  reason: string;
}

/** A call was approved or denied before it ran: by a rule, a remembered decision, or whoever answered (and how long they took). */
export interface ApprovalDecisionEvent {
  kind: 'approval_decision';
  step: number;
  callId: string;
  tool: string;
  argsHash: string;
  verdict: 'allow' | 'deny';
  /** rule, remembered, terminal, page, command, hook, policy or timeout. */
  by: string;
  reason?: string;
  message?: string;
  /** The answer was for another call or other arguments, so it counted as a denial. */
  mismatch?: boolean;
  remember?: string;
  waitedMs?: number;
}

/** A lifecycle hook ran: its moment, command, where it ran, exit status, what it answered, and any problem (crash, timeout, bad output). */
export interface HookEvent {
  kind: 'hook';
  step: number;
  moment: string;
  command: string;
  /** `sandbox`: a sandbox of its own under the run's policy; `host`: outside it (see hostBecause). */
  where?: 'sandbox' | 'host';
  /** Why it ran on the host: `where: host`, the run has no sandbox, a function of the rules module. */
  hostBecause?: string;
  exitCode: number | null;
  ms: number;
  decision?: string;
  message?: string;
  problem?: string;
  stdout?: string;
  stderr?: string;
}

/** Every event a rein trace line can be. */
export type TraceEvent =
  | StartEvent
  | ResumeEvent
  | InterruptedEvent
  | CrashEvent
  | TransitionEvent
  | ModelEvent
  | ToolEvent
  | RetryEvent
  | ContextEvent
  | FinishEvent
  | StallEvent
  | ProgressEvent
  | BudgetWarningEvent
  | RuleActionEvent
  | EndEvent
  | JobEvent
  | SecretsMaskedEvent
  | ApprovalAskEvent
  | ApprovalDecisionEvent
  | HookEvent
  | McpServerEvent
  | McpToolsEvent
  | CallsRecoveredEvent
  | CallIdsEvent
  | ArgumentsRepairedEvent
  | ToolCallingEvent
  | RepositoryInstructionsEvent
  | HostFilesEvent
  | AgentEvent;

/**
 * At the end of a run: repositories it created or redirected in the workspace, moved aside so no git on the host uses
 * them, and files other programs on the host run from that it changed (`.husky/`, `.envrc`, `.vscode/tasks.json`, …).
 */
export interface HostFilesEvent {
  kind: 'host_files';
  quarantined: Array<{ path: string; kind: 'dir' | 'file' | 'link' | 'bare'; movedTo: string }>;
  changed: Array<{ path: string; change: 'created' | 'changed' | 'removed' }>;
  unchecked: boolean;
}

/** An MCP server's lifecycle step (actors/mcp/server-machine.ts): starting, ready, restarting, failed, closing, closed. */
export interface McpServerEvent {
  kind: 'mcp_server';
  server: string;
  state: string;
  restarts: number;
  /** Why it failed or is restarting (null when ready). */
  problem: string | null;
  /** Where it runs: stdio in or out of the sandbox, or the HTTP origin and path (never its headers). */
  where?: string;
  tools?: number;
  /** Lines it printed on stdout that were not JSON-RPC (skipped). */
  garbageLines?: number;
}

/** What the run offers from MCP servers: at the start, when find_tools appends, and when a server's tools change mid-run. */
export interface McpToolsEvent {
  kind: 'mcp_tools';
  /** `offered`: the start's list; `found`: appended by find_tools; `changed`: a definition changed after a restart; `refused`: left out. */
  change: 'offered' | 'found' | 'changed' | 'refused';
  /** `all`: every definition sent; `search`: only find_tools until the model finds them. */
  mode?: 'all' | 'search';
  tools: { server: string; tool: string; name?: string; reason?: string }[];
  /** Characters of tool definitions the catalogue holds (all servers). */
  catalogueChars?: number;
}

/** A delegated child: started (with its caps), refused, resumed or ended (with its usage), by the parent's `delegate` call. */
export interface AgentEvent {
  kind: 'agent';
  event: 'start' | 'refused' | 'resume' | 'end';
  agent: string;
  /** The child's id in its parent: `<step>:<call>:<task>`. */
  child: string;
  /** The parent's `delegate` call that started it. */
  callId: string;
  /** 1 for a child of the run, 2 for its child, … */
  depth: number;
  /** The child's own run directory (its trace, record and saved state). */
  runDir: string;
  caps?: { steps: number; seconds: number; tokens?: number; costUsd?: number };
  status?: EndStatus | 'interrupted' | 'crashed';
  steps?: number;
  usage?: Usage;
  reason?: string;
}

export type TraceKind = TraceEvent['kind'];
/** Every kind of trace line this version writes, once each: a kind added to `TraceEvent` fails to compile until it is listed here. */
const TRACE_KIND_TABLE = {
  start: true,
  transition: true,
  model: true,
  tool: true,
  stall: true,
  progress: true,
  finish: true,
  budget_warning: true,
  context: true,
  retry: true,
  resume: true,
  crash: true,
  end: true,
  rule_action: true,
  interrupted: true,
  job: true,
  secrets_masked: true,
  approval_ask: true,
  approval_decision: true,
  hook: true,
  mcp_server: true,
  mcp_tools: true,
  calls_recovered: true,
  call_ids: true,
  arguments_repaired: true,
  tool_calling: true,
  repository_instructions: true,
  host_files: true,
  agent: true,
} satisfies Record<TraceKind, true>;

/** The kinds of trace line this version writes; readers show others raw. */
export const TRACE_KINDS = Object.keys(TRACE_KIND_TABLE) as TraceKind[];

export type TraceEventOf<K extends TraceKind> = Extract<TraceEvent, { kind: K }>;
/** An event's fields without its kind, as `log(kind, data)` takes them. */
export type TraceData<K extends TraceKind> = TraceEventOf<K> extends infer E ? (E extends unknown ? Omit<E, 'kind'> : never) : never;

/** A line as written: `i` orders lines, `t` is seconds since the epoch. */
export type TraceLine = TraceEvent & { i: number; t: number };

/** A line as read from a file, which may come from another rein version: narrow it with `isEvent`. */
export interface TraceRecord {
  i: number;
  t: number;
  kind: string;
  [field: string]: unknown;
}

/**
 * Narrows a line read from a file to a known event kind.
 *
 * @example if (isEvent(line, 'stall')) console.log(line.rule, line.reason);
 */
export function isEvent<K extends TraceKind>(line: TraceRecord, kind: K): line is TraceRecord & TraceEventOf<K> {
  return line.kind === kind;
}

/** The machine's trace notes: the kinds its actions emit. */
export type MachineNote =
  | ContextEvent
  | FinishEvent
  | StallEvent
  | ProgressEvent
  | BudgetWarningEvent
  | RuleActionEvent
  | EndEvent
  | ApprovalAskEvent
  | ApprovalDecisionEvent
  | HookEvent
  | CallIdsEvent;

export type { TodoItem };
