import type { Attributes } from '@opentelemetry/api';
import type { TraceRecord as TraceLine } from 'rein/formats';
import { summaryMessages, systemInstructions, taskMessages } from './content.js';
import { AGENT_NAME, GEN_AI, GENERAL, OPERATION, REIN } from './conventions.js';
import type { EndpointFacts } from './endpoint-facts.js';
import { defined, num, record, str } from './line-fields.js';

/** What is known about a run before its first span: from its start line, or given (a resumed run exported live). */
export interface RunFacts {
  runId?: string;
  model?: string;
  endpoint?: string;
  /** The run's conversation id, the same as its ATIF session id (session-id.ts); the run id when unknown. */
  conversationId?: string;
  /** The rein that ran it. */
  agentVersion?: string;
}

/** The attributes an `invoke_agent rein` span starts with. */
export function runStartAttributes(facts: RunFacts, endpoint: EndpointFacts, start: TraceLine | null, content: boolean): Attributes {
  const rules = record(start?.rules);
  const tools = Array.isArray(start?.tools) ? start.tools.filter((tool): tool is string => typeof tool === 'string') : undefined;
  const task = str(start?.task);
  const system = str(rules.systemPrompt);
  return defined({
    [GEN_AI.operationName]: OPERATION.invokeAgent,
    [GEN_AI.providerName]: endpoint.provider,
    [GEN_AI.agentName]: AGENT_NAME,
    [GEN_AI.agentVersion]: facts.agentVersion,
    [GEN_AI.conversationId]: facts.conversationId ?? facts.runId,
    [GEN_AI.requestModel]: facts.model,
    [GENERAL.serverAddress]: endpoint.address,
    [GENERAL.serverPort]: endpoint.port,
    [REIN.traceVersion]: num(start?.version),
    [REIN.testCmd]: str(start?.testCmd),
    [REIN.sandbox]: str(start?.sandbox),
    [REIN.runDir]: str(start?.runDir),
    [REIN.tools]: tools,
    [GEN_AI.inputMessages]: content && task ? taskMessages(task) : undefined,
    [GEN_AI.systemInstructions]: content && system ? systemInstructions(system) : undefined,
  });
}

/** How a run segment ended: its attributes, and the error type when it did not finish. */
export interface RunEnding {
  attributes: Attributes;
  error?: string;
  message?: string;
}

/** From an `end` line: the status, the reason and the run's total usage. */
export function runEndAttributes(line: TraceLine, content: boolean): RunEnding {
  const status = str(line.status) ?? 'unknown';
  const usage = record(line.usage);
  const reason = str(line.reason);
  const summary = str(line.summary);
  const attributes = defined({
    [REIN.runStatus]: status,
    [REIN.runReason]: reason || undefined,
    [REIN.runSteps]: num(line.steps),
    [REIN.modelCalls]: num(usage.calls),
    [REIN.runCostUsd]: num(usage.costUsd),
    [GEN_AI.usageInputTokens]: num(usage.promptTokens),
    [GEN_AI.usageOutputTokens]: num(usage.completionTokens),
    [GEN_AI.usageCacheReadInputTokens]: num(usage.cachedTokens),
    [GEN_AI.outputMessages]: content && summary ? summaryMessages(summary) : undefined,
  });
  if (status === 'done') return { attributes };
  return { attributes: { ...attributes, [GENERAL.errorType]: status }, error: status, ...(reason ? { message: reason } : {}) };
}

/** A segment that stopped without an end line: interrupted, crashed, or cut off (a killed process). */
export function runStopAttributes(status: 'interrupted' | 'crashed' | 'unfinished', message: string): RunEnding {
  return { attributes: { [REIN.runStatus]: status, [GENERAL.errorType]: status }, error: status, message };
}
