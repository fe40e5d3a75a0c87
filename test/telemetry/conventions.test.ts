import * as incubating from '@opentelemetry/semantic-conventions/incubating';
import { describe, expect, it } from 'vitest';
import { GEN_AI, GENERAL, MCP, METRIC, NETWORK_TRANSPORT, OPERATION, SCHEMA_URL, SEMCONV_VERSION, TOKEN_TYPE } from '../../telemetry/conventions.js';

// The official package's constants, generated from the semantic-conventions release rein pins.
const official: Record<keyof typeof GEN_AI, string> = {
  operationName: incubating.ATTR_GEN_AI_OPERATION_NAME,
  providerName: incubating.ATTR_GEN_AI_PROVIDER_NAME,
  agentName: incubating.ATTR_GEN_AI_AGENT_NAME,
  agentVersion: incubating.ATTR_GEN_AI_AGENT_VERSION,
  agentId: incubating.ATTR_GEN_AI_AGENT_ID,
  conversationId: incubating.ATTR_GEN_AI_CONVERSATION_ID,
  requestModel: incubating.ATTR_GEN_AI_REQUEST_MODEL,
  requestMaxTokens: incubating.ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  responseFinishReasons: incubating.ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  responseId: incubating.ATTR_GEN_AI_RESPONSE_ID,
  responseModel: incubating.ATTR_GEN_AI_RESPONSE_MODEL,
  tokenType: incubating.ATTR_GEN_AI_TOKEN_TYPE,
  usageInputTokens: incubating.ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  usageOutputTokens: incubating.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  usageCacheReadInputTokens: incubating.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  toolName: incubating.ATTR_GEN_AI_TOOL_NAME,
  toolCallId: incubating.ATTR_GEN_AI_TOOL_CALL_ID,
  toolType: incubating.ATTR_GEN_AI_TOOL_TYPE,
  inputMessages: incubating.ATTR_GEN_AI_INPUT_MESSAGES,
  outputMessages: incubating.ATTR_GEN_AI_OUTPUT_MESSAGES,
  systemInstructions: incubating.ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  toolCallArguments: incubating.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  toolCallResult: incubating.ATTR_GEN_AI_TOOL_CALL_RESULT,
};

describe("the names rein exports are the pinned conventions' names", () => {
  it('every gen_ai.* attribute matches the official constant', () => {
    expect(GEN_AI).toEqual(official);
  });

  it('the general attributes and operation names match too', () => {
    expect(GENERAL).toMatchObject({
      errorType: incubating.ATTR_ERROR_TYPE,
      serverAddress: incubating.ATTR_SERVER_ADDRESS,
      serverPort: incubating.ATTR_SERVER_PORT,
      serviceName: incubating.ATTR_SERVICE_NAME,
      serviceVersion: incubating.ATTR_SERVICE_VERSION,
    });
    expect(OPERATION).toEqual({
      invokeAgent: incubating.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
      chat: incubating.GEN_AI_OPERATION_NAME_VALUE_CHAT,
      executeTool: incubating.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
    });
    expect(SCHEMA_URL).toBe(`https://opentelemetry.io/schemas/${SEMCONV_VERSION}`);
  });

  it('the metrics, the token types and the MCP attributes match too', () => {
    expect(METRIC).toEqual({ tokenUsage: incubating.METRIC_GEN_AI_CLIENT_TOKEN_USAGE, operationDuration: incubating.METRIC_GEN_AI_CLIENT_OPERATION_DURATION });
    expect(TOKEN_TYPE).toEqual({ input: incubating.GEN_AI_TOKEN_TYPE_VALUE_INPUT, output: incubating.GEN_AI_TOKEN_TYPE_VALUE_OUTPUT });
    expect(MCP).toEqual({
      methodName: incubating.ATTR_MCP_METHOD_NAME,
      toolsCall: incubating.MCP_METHOD_NAME_VALUE_TOOLS_CALL,
      networkTransport: incubating.ATTR_NETWORK_TRANSPORT,
      networkProtocolName: incubating.ATTR_NETWORK_PROTOCOL_NAME,
    });
    expect(NETWORK_TRANSPORT).toEqual({ pipe: incubating.NETWORK_TRANSPORT_VALUE_PIPE, tcp: incubating.NETWORK_TRANSPORT_VALUE_TCP });
  });
});
