import type { Attributes } from '@opentelemetry/api';
import { readEffectData, type TraceRecord as TraceLine } from 'rein/formats';
import { contentText, finishReasonOf, outputMessages } from './content.js';
import { GEN_AI, GENERAL, OPERATION, REIN, TOOL_ERROR, TOOL_TYPE_FUNCTION } from './conventions.js';
import type { EndpointFacts } from './endpoint-facts.js';
import { bool, defined, num, record, str } from './line-fields.js';
import { type McpServers, mcpCallAttributes } from './mcp-attributes.js';

/** What a model or tool span needs to know about the run it belongs to. */
export interface CallScope {
  model: string;
  endpoint: EndpointFacts;
  phase: string;
  content: boolean;
  /** The run's conversation id (its ATIF session id). */
  conversationId?: string;
  /** Where the run's MCP servers run, for the MCP attributes of their tool calls. */
  mcpServers: McpServers;
}

/** The attributes of a `chat {model}` span, from a `model` trace line. */
export function chatAttributes(line: TraceLine, scope: CallScope): Attributes {
  const usage = record(line.usage);
  const toolCalls = Array.isArray(line.tool_calls) ? line.tool_calls : [];
  return defined({
    ...modelScope(scope),
    ...responseAttributes(line),
    [GEN_AI.conversationId]: scope.conversationId,
    [GEN_AI.usageInputTokens]: num(usage.promptTokens),
    [GEN_AI.usageOutputTokens]: num(usage.completionTokens),
    [GEN_AI.usageCacheReadInputTokens]: num(usage.cachedTokens),
    [GEN_AI.responseFinishReasons]: [finishReasonOf(toolCalls, line.finishReason)],
    [REIN.step]: num(line.step),
    [REIN.phase]: scope.phase || undefined,
    [GEN_AI.outputMessages]: scope.content ? outputMessages(line.content, toolCalls, line.finishReason) : undefined,
  });
}

/** The response's id and the model that answered, when the trace kept them. */
export function responseAttributes(line: TraceLine): Attributes {
  return defined({ [GEN_AI.responseId]: str(line.responseId), [GEN_AI.responseModel]: str(line.responseModel) });
}

/** The attributes every `chat` span starts with, a failed one included. */
export function modelScope(scope: CallScope): Attributes {
  return defined({
    [GEN_AI.operationName]: OPERATION.chat,
    [GEN_AI.providerName]: scope.endpoint.provider,
    [GEN_AI.requestModel]: scope.model || undefined,
    [GENERAL.serverAddress]: scope.endpoint.address,
    [GENERAL.serverPort]: scope.endpoint.port,
  });
}

/** The attributes of an `execute_tool {name}` span from a `tool` line, and its error type when it failed. */
export function toolAttributes(line: TraceLine, scope: CallScope): { attributes: Attributes; error?: string } {
  const effect = record(line.effect);
  const ok = bool(line.ok) ?? true;
  const outcome = toolOutcome(effect, ok);
  const attributes = defined({
    ...toolScope(str(line.name) ?? 'unknown', str(line.id), line.step, scope),
    [REIN.toolOk]: ok,
    [REIN.toolOutcome]: outcome,
    [REIN.toolEffect]: str(effect.kind),
    [REIN.exitCode]: num(effect.exitCode),
    [REIN.blockedBy]: str(effect.blockedBy),
    [REIN.mcpServer]: effect.kind === 'mcp' ? str(effect.server) : undefined,
    [REIN.mcpTool]: effect.kind === 'mcp' ? str(effect.tool) : undefined,
    ...(effect.kind === 'mcp' ? mcpCallAttributes(scope.mcpServers, str(effect.server)) : {}),
    // Paths and commands are the call's arguments: contents, like the arguments themselves.
    [REIN.path]: scope.content ? str(effect.path) : undefined,
    [REIN.command]: scope.content ? str(effect.command) : undefined,
    [GEN_AI.toolCallArguments]: scope.content ? contentText(line.args ?? {}) : undefined,
    [GEN_AI.toolCallResult]: scope.content ? contentText(line.result ?? '') : undefined,
  });
  return ok ? { attributes } : { attributes: { ...attributes, [GENERAL.errorType]: outcome }, error: outcome };
}

/** The `execute_tool finish` span: the gate's decision on a finish call, from a `finish` line. */
export function finishAttributes(line: TraceLine, callId: string | undefined, scope: CallScope): { attributes: Attributes; error?: string } {
  const allowed = bool(line.allowed) ?? false;
  const attributes = defined({
    ...toolScope('finish', callId, line.step, scope),
    [REIN.toolOk]: allowed,
    [REIN.toolOutcome]: allowed ? 'accepted' : TOOL_ERROR.refused,
    [REIN.gateAllowed]: allowed,
    [REIN.gateWhy]: str(line.why),
    [REIN.gateRefusals]: num(line.refusals),
  });
  return allowed ? { attributes } : { attributes: { ...attributes, [GENERAL.errorType]: TOOL_ERROR.refused }, error: TOOL_ERROR.refused };
}

function toolScope(name: string, callId: string | undefined, step: unknown, scope: CallScope): Attributes {
  return defined({
    [GEN_AI.operationName]: OPERATION.executeTool,
    [GEN_AI.toolName]: name,
    [GEN_AI.toolCallId]: callId,
    [GEN_AI.toolType]: TOOL_TYPE_FUNCTION,
    [REIN.step]: num(step),
    [REIN.phase]: scope.phase || undefined,
  });
}

const MCP_OUTCOMES: Record<string, string> = {
  timeout: TOOL_ERROR.timeout,
  crashed: TOOL_ERROR.crashed,
  unavailable: TOOL_ERROR.unavailable,
  refused: TOOL_ERROR.refused,
  interrupted: TOOL_ERROR.interrupted,
};

/**
 * A tool call's outcome in one word. A command that ran and exited non-zero is
 * not a failed tool call (the model reads the failure); a blocked, timed-out,
 * interrupted or rejected one is.
 */
function toolOutcome(effect: Record<string, unknown>, ok: boolean): string {
  const generic = () => (ok ? 'ok' : TOOL_ERROR.error);
  // One entry per kind of effect: a new kind fails tsc here until it names its outcome.
  return readEffectData<string>(
    effect,
    {
      command: () => {
        if (effect.blocked === true) return TOOL_ERROR.blocked;
        if (effect.interrupted === true) return TOOL_ERROR.interrupted;
        if (effect.timedOut === true) return TOOL_ERROR.timeout;
        return ok ? (effect.exitCode === 0 ? 'exit_zero' : 'exit_nonzero') : TOOL_ERROR.error;
      },
      edit: () => (effect.applied === true ? 'applied' : TOOL_ERROR.rejected),
      mcp: () => (ok ? 'ok' : (MCP_OUTCOMES[String(effect.outcome)] ?? TOOL_ERROR.error)),
      read: generic,
      search: generic,
      job: generic,
      todo: generic,
      finish: generic,
      none: generic,
    },
    generic,
  );
}
