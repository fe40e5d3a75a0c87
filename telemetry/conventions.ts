/**
 * Every OpenTelemetry name rein exports, in one place. The GenAI semantic
 * conventions are still marked Development, so rein pins the release it
 * follows: a newer release may rename things, and this is the one file to
 * change (a test checks each name against the official
 * `@opentelemetry/semantic-conventions` package generated from those names).
 *
 * Why 1.41.0: it is the last release of the core semantic conventions that
 * holds the GenAI and MCP conventions. From 1.42.0 (2026-06) they are
 * deprecated there and moved to the OpenTelemetry GenAI semantic-conventions
 * repository, which has made no release yet (its maintainers say to keep using
 * the core artifact's names until it does); the names and their meanings are
 * unchanged. When it releases, its schema URL replaces SCHEMA_URL here.
 */

/** The semantic-conventions release these names follow (the last to hold the GenAI conventions before they moved to their own repository). */
export const SEMCONV_VERSION = '1.41.0';
export const SCHEMA_URL = `https://opentelemetry.io/schemas/${SEMCONV_VERSION}`;

/** The instrumentation scope and agent name. */
export const AGENT_NAME = 'rein';

export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  agentName: 'gen_ai.agent.name',
  agentVersion: 'gen_ai.agent.version',
  agentId: 'gen_ai.agent.id',
  conversationId: 'gen_ai.conversation.id',
  requestModel: 'gen_ai.request.model',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  responseId: 'gen_ai.response.id',
  responseModel: 'gen_ai.response.model',
  tokenType: 'gen_ai.token.type',
  usageInputTokens: 'gen_ai.usage.input_tokens',
  usageOutputTokens: 'gen_ai.usage.output_tokens',
  usageCacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  // Opt-in: message contents, tool arguments and results.
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  systemInstructions: 'gen_ai.system_instructions',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
} as const;

/** Stable general attributes used on GenAI spans. */
export const GENERAL = {
  errorType: 'error.type',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  serviceName: 'service.name',
  serviceVersion: 'service.version',
} as const;

/** The MCP conventions' attributes, added to the `execute_tool` span of an MCP tool call (the conventions' rule when a GenAI span already traces the call). */
export const MCP = {
  methodName: 'mcp.method.name',
  /** The value for a tool call. */
  toolsCall: 'tools/call',
  networkTransport: 'network.transport',
  networkProtocolName: 'network.protocol.name',
} as const;

/** `network.transport` values: `pipe` for a stdio server, `tcp` for an HTTP one. */
export const NETWORK_TRANSPORT = { pipe: 'pipe', tcp: 'tcp' } as const;

/** The GenAI client metrics, with the conventions' advisory bucket boundaries. */
export const METRIC = {
  tokenUsage: 'gen_ai.client.token.usage',
  operationDuration: 'gen_ai.client.operation.duration',
} as const;
export const TOKEN_USAGE_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
export const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
/** `gen_ai.token.type` values. */
export const TOKEN_TYPE = { input: 'input', output: 'output' } as const;

/** `gen_ai.operation.name` values; span names are `{operation} {subject}`. */
export const OPERATION = { invokeAgent: 'invoke_agent', chat: 'chat', executeTool: 'execute_tool' } as const;

/** `gen_ai.provider.name`: `openai` for any OpenAI-compatible endpoint (the conventions' rule for OpenAI client libraries), a custom value for the offline scripted model. */
export const PROVIDER = { openai: 'openai', scripted: 'rein.scripted' } as const;

export const TOOL_TYPE_FUNCTION = 'function';

/** The variable the OpenTelemetry GenAI instrumentations read to record message contents. */
export const CAPTURE_CONTENT_ENV = 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT';

/** rein's own facts (not part of the conventions). */
export const REIN = {
  runStatus: 'rein.run.status',
  runReason: 'rein.run.reason',
  runSteps: 'rein.run.steps',
  runCostUsd: 'rein.run.cost_usd',
  runResumed: 'rein.run.resumed',
  runDir: 'rein.run.dir',
  /** A delegated child's span: its depth, the parent's delegate call, and the parent's conversation and run ids. */
  agentDepth: 'rein.agent.depth',
  parentCallId: 'rein.parent.call_id',
  parentConversationId: 'rein.parent.conversation_id',
  parentRunId: 'rein.parent.run_id',
  testCmd: 'rein.test_cmd',
  sandbox: 'rein.sandbox',
  tools: 'rein.tools',
  traceVersion: 'rein.trace.version',
  step: 'rein.step',
  phase: 'rein.phase',
  modelCalls: 'rein.model.calls',
  toolOk: 'rein.tool.ok',
  toolOutcome: 'rein.tool.outcome',
  toolEffect: 'rein.tool.effect',
  exitCode: 'rein.command.exit_code',
  blockedBy: 'rein.command.blocked_by',
  path: 'rein.tool.path',
  command: 'rein.command',
  /** The MCP server an `mcp__<server>__<tool>` call went to, and the tool's own name there. */
  mcpServer: 'rein.mcp.server',
  mcpTool: 'rein.mcp.tool',
  gateAllowed: 'rein.gate.allowed',
  gateWhy: 'rein.gate.why',
  gateRefusals: 'rein.gate.refusals',
  gateGuard: 'rein.gate.guard',
  // Span-event attributes.
  from: 'rein.from',
  to: 'rein.to',
  guard: 'rein.guard',
  event: 'rein.event',
  stallRule: 'rein.stall.rule',
  stallLimit: 'rein.stall.limit',
  stallFirings: 'rein.stall.firings',
  stallCount: 'rein.stall.count',
  stallMaxNudges: 'rein.stall.max_nudges',
  stallReason: 'rein.stall.reason',
  message: 'rein.message',
  budget: 'rein.budget',
  limit: 'rein.limit',
  share: 'rein.budget.share',
  used: 'rein.budget.used',
  contextAction: 'rein.context.action',
  beforeChars: 'rein.context.before.chars',
  beforeTokens: 'rein.context.before.tokens',
  afterChars: 'rein.context.after.chars',
  afterTokens: 'rein.context.after.tokens',
  retryAttempt: 'rein.retry.attempt',
  retryDelayMs: 'rein.retry.delay_ms',
  error: 'rein.error',
  action: 'rein.action',
  problem: 'rein.problem',
  jobId: 'rein.job.id',
  jobState: 'rein.job.state',
  jobCause: 'rein.job.cause',
  secretKinds: 'rein.secrets.kinds',
  /** The tools whose results made progress in a turn, in call order, comma-separated. */
  progressTools: 'rein.progress.tools',
  /** The kinds of progress a turn made (newInfo, newFileState, todoChange, testChange), comma-separated. */
  progressKinds: 'rein.progress.kinds',
  callId: 'rein.tool.call_id',
  toolName: 'rein.tool.name',
  approvalReason: 'rein.approval.reason',
  approvalVerdict: 'rein.approval.verdict',
  /** Who answered: rule, remembered, terminal, page, command, hook, policy, timeout. */
  approvalBy: 'rein.approval.by',
  approvalWaitedMs: 'rein.approval.waited_ms',
  approvalRemember: 'rein.approval.remember',
  approvalMismatch: 'rein.approval.mismatch',
  hookMoment: 'rein.hook.moment',
  hookDecision: 'rein.hook.decision',
  hookMs: 'rein.hook.ms',
  /** Where a hook ran: sandbox or host. */
  hookWhere: 'rein.hook.where',
} as const;

/** Span events rein adds (on the run span unless noted). */
export const EVENT = {
  phase: 'rein.phase_change',
  gate: 'rein.gate',
  stall: 'rein.stall',
  budgetWarning: 'rein.budget_warning',
  ruleAction: 'rein.rule_action',
  resume: 'rein.resume',
  /** A background job started, ended or was lost. */
  job: 'rein.job',
  /** Secrets in a known format were masked in a tool result. */
  secretsMasked: 'rein.secrets_masked',
  /** What a turn's results made new, as the stall detector counted it. */
  progress: 'rein.progress',
  /** On the `chat` span the compaction prepared the view for. */
  context: 'rein.context',
  /** On the `chat` span whose request was retried. */
  retry: 'rein.retry',
  /** A tool call waits for an approval. */
  approvalAsk: 'rein.approval_ask',
  /** A call was approved or denied before running (by whom, after how long). */
  approvalDecision: 'rein.approval_decision',
  /** A lifecycle hook ran. */
  hook: 'rein.hook',
  /** A trace line of a kind this version does not know: `rein.trace.<kind>`. */
  unknownPrefix: 'rein.trace.',
} as const;

/**
 * `error.type` values rein reports (the conventions ask instrumentations to list them):
 * on `invoke_agent`, the end status of a run that did not finish (`step_limit`, `timeout`, `budget`,
 * `stalled`, `failed`, `interrupted`, `crashed`, `unfinished` for a trace that stops without an end line);
 * on `chat`, the error's class name (`ModelEndpointError`, `ContextLengthError`, …), or `timeout` / `cancelled` for a call
 * the time budget or a stop cut short;
 * on `execute_tool`, the outcome below.
 */
export const TOOL_ERROR = {
  blocked: 'blocked',
  rejected: 'rejected',
  refused: 'refused',
  timeout: 'timeout',
  interrupted: 'interrupted',
  /** An MCP server that crashed during the call, or was not running. */
  crashed: 'crashed',
  unavailable: 'unavailable',
  error: 'tool_error',
} as const;
