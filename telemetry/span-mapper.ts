import { basename } from 'node:path';
import { type Attributes, type Context, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import type { TraceRecord as TraceLine } from 'rein/formats';
import { type CallScope, chatAttributes, finishAttributes, modelScope, responseAttributes, toolAttributes } from './call-attributes.js';
import { type ChildLink, childLinkOf, readChildTrace } from './child-traces.js';
import { AGENT_NAME, GEN_AI, GENERAL, OPERATION, PROVIDER, REIN } from './conventions.js';
import { type EndpointFacts, endpointFacts } from './endpoint-facts.js';
import { contextEvent, type LineEvent, phaseEvent, retryEvent, runEvent } from './event-attributes.js';
import type { GenAiMetrics } from './genai-metrics.js';
import { defined, hrTime, num, phaseOf, record, str } from './line-fields.js';
import { type McpServers, noteMcpServer } from './mcp-attributes.js';
import { type RunEnding, type RunFacts, runEndAttributes, runStartAttributes, runStopAttributes } from './run-attributes.js';
import { sessionIdOf } from './session-id.js';

interface SpanMapperOptions {
  /** Export message contents, tool arguments and results (the conventions' opt-in attributes). */
  content: boolean;
  /** Facts for a trace without a start line (a resumed run exported live). */
  facts?: RunFacts;
  /** Where the GenAI client metrics of each model call go, if anywhere. */
  metrics?: GenAiMetrics;
  /** Reads a delegated child's trace lines (default: its trace file, as written). */
  childLines?: (parentRunDir: string | undefined, link: ChildLink) => TraceLine[] | null;
  /** A delegated child's trace: its spans nest under this context (its parent's span) and carry its parent's ids. */
  parent?: { context: Context; link: ChildLink; conversationId?: string; runId?: string };
}

interface SpanMapper {
  /** Maps one trace line; lines must come in trace order. */
  line(line: TraceLine): void;
  /** Ends a run span left open (a trace that stops without an end line). */
  close(): void;
}

interface OpenRun {
  span: Span;
  context: Context;
}
interface FinishCall {
  id?: string;
}

/**
 * Turns rein trace lines into OpenTelemetry GenAI spans: one `invoke_agent rein`
 * span per run segment (a start or resume up to its end), a `chat {model}`
 * child per model call and an `execute_tool {name}` child per tool call.
 * Model and tool lines carry their duration, so every span gets its original
 * times: the same mapper serves the live export and `rein trace export`.
 * Lines written before the start line (the MCP servers starting) wait for it
 * and join its segment, so a run is one root span whatever its setup writes.
 *
 * @example const mapper = createSpanMapper(provider.getTracer('rein'), { content: false }); lines.forEach(mapper.line); mapper.close();
 */
export function createSpanMapper(tracer: Tracer, options: SpanMapperOptions): SpanMapper {
  const facts: RunFacts = { ...options.facts };
  let endpoint: EndpointFacts = endpointFacts(facts.endpoint);
  let run: OpenRun | null = null;
  let ended = false;
  let state = '';
  let thinkAt: number | undefined;
  let lastAt: number | undefined;
  let lastCallEnd: number | undefined;
  let finishCalls: FinishCall[] = [];
  // The phase a model call was made in: its finish call is judged there, though the gate's line comes after the phase moved on.
  let callPhase = '';
  let pending: Array<LineEvent & { at: number }> = [];
  // Lines before the first start or resume line: they belong to the segment it opens.
  let early: TraceLine[] | null = [];
  const mcpServers: McpServers = new Map();
  let runDir: string | undefined;
  // Children started or resumed by a delegate call not yet mapped: their spans go under that call's span when its
  // line comes (the child has ended by then), or under the run's span if the trace stops first.
  const children = new Map<string, ChildLink>();
  let lastRunContext: Context | null = null;

  const scope = (phase = phaseOf(state)): CallScope => ({
    model: facts.model ?? '',
    endpoint,
    phase,
    content: options.content,
    conversationId: facts.conversationId ?? facts.runId,
    mcpServers,
  });
  // A model call leaves the process, unless the model is the offline scripted one (the conventions' INTERNAL case).
  const chatKind = () => (endpoint.provider === PROVIDER.scripted ? SpanKind.INTERNAL : SpanKind.CLIENT);
  const child = (name: string, kind: SpanKind, start: number, attributes: Attributes) =>
    tracer.startSpan(name, { kind, startTime: hrTime(start), attributes }, run!.context);

  function openRun(at: number, start: TraceLine | null, resumed: boolean) {
    const attributes = { ...runStartAttributes(facts, endpoint, start, options.content), ...childAttributes() };
    const parent = options.parent?.context ?? ROOT_CONTEXT;
    const span = tracer.startSpan(
      `${OPERATION.invokeAgent} ${options.parent?.link.agent ?? AGENT_NAME}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: hrTime(at),
        attributes: resumed ? { ...attributes, [REIN.runResumed]: true } : attributes,
      },
      parent,
    );
    run = { span, context: trace.setSpan(parent, span) };
    lastRunContext = run.context;
    state = '';
    thinkAt = undefined;
    lastCallEnd = undefined;
    finishCalls = [];
    pending = [];
  }

  /** A child's agent span: its agent's name and id, and its parent's ids. */
  function childAttributes(): Attributes {
    const parent = options.parent;
    if (!parent) return {};
    return defined({
      [GEN_AI.agentName]: parent.link.agent,
      [GEN_AI.agentId]: basename(parent.link.runDir),
      [REIN.agentDepth]: parent.link.depth,
      [REIN.parentCallId]: parent.link.callId,
      [REIN.parentConversationId]: parent.conversationId,
      [REIN.parentRunId]: parent.runId,
    });
  }

  /** Maps the children of one delegate call (or all left) under `context`: each child's trace, with its own children. */
  function mapChildren(context: Context, callId?: string) {
    for (const [id, link] of children) {
      if (callId !== undefined && link.callId !== callId) continue;
      children.delete(id);
      const lines = (options.childLines ?? readChildTrace)(runDir, link);
      if (!lines) continue;
      const mapper = createSpanMapper(tracer, {
        content: options.content,
        ...(options.metrics ? { metrics: options.metrics } : {}),
        ...(options.childLines ? { childLines: options.childLines } : {}),
        parent: { context, link, ...defined({ conversationId: facts.conversationId ?? facts.runId, runId: facts.runId }) },
      });
      for (const line of lines) mapper.line(line);
      mapper.close();
    }
  }

  function endRun(at: number, ending: RunEnding) {
    if (!run) return;
    run.span.setAttributes(ending.attributes);
    if (ending.error) run.span.setStatus({ code: SpanStatusCode.ERROR, ...(ending.message ? { message: ending.message } : {}) });
    run.span.end(hrTime(at));
    run = null;
    ended = true;
  }

  function endCall(span: Span, at: number, error?: string, message?: string) {
    for (const event of pending) span.addEvent(event.name, event.attributes, hrTime(event.at));
    pending = [];
    if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: message ?? error });
    span.end(hrTime(at));
    lastCallEnd = at;
  }

  function onModel(line: TraceLine) {
    const ms = num(line.ms);
    const span = child(
      `${OPERATION.chat} ${facts.model ?? ''}`.trim(),
      chatKind(),
      ms !== undefined ? line.t - ms / 1000 : (thinkAt ?? line.t),
      chatAttributes(line, scope()),
    );
    callPhase = phaseOf(state);
    const usage = record(line.usage);
    options.metrics?.record({
      attributes: { ...modelScope(scope()), ...responseAttributes(line) },
      inputTokens: num(usage.promptTokens),
      outputTokens: num(usage.completionTokens),
      seconds: ms !== undefined ? ms / 1000 : thinkAt !== undefined ? line.t - thinkAt : undefined,
    });
    finishCalls = (Array.isArray(line.tool_calls) ? line.tool_calls : [])
      .filter((call) => (call as { function?: { name?: unknown } }).function?.name === 'finish')
      .map((call) => ({ id: str((call as { id?: unknown }).id) }));
    endCall(span, line.t);
  }

  /** A model call that ended without a reply: failed (its error's class is the type), or cut short (`timeout`, `cancelled`). */
  function onFailedModel(line: TraceLine, cutShort?: string) {
    const error = cutShort ? `the call was cut short (${cutShort})` : (str(line.error) ?? 'model call failed');
    const type = cutShort ?? /^([A-Za-z_][\w.]*)(?::|\s|$)/.exec(error)?.[1] ?? '_OTHER';
    const span = child(`${OPERATION.chat} ${facts.model ?? ''}`.trim(), chatKind(), thinkAt ?? line.t, { ...modelScope(scope()), [GENERAL.errorType]: type });
    options.metrics?.record({ attributes: modelScope(scope()), seconds: thinkAt !== undefined ? line.t - thinkAt : undefined, errorType: type });
    endCall(span, line.t, type, error);
  }

  function onTransition(line: TraceLine) {
    const from = str(line.from) ?? state;
    const to = str(line.to) ?? from;
    if (phaseOf(from) !== phaseOf(to)) {
      const event = phaseEvent(line, phaseOf(from), phaseOf(to));
      run!.span.addEvent(event.name, event.attributes, hrTime(line.t));
    }
    if (from.endsWith('.think') && !to.endsWith('.think')) {
      // Leaving think without the model's answer: the time budget or another event cut the call short.
      if (line.event === 'xstate.error.actor.model') onFailedModel(line);
      else if (line.event !== 'xstate.done.actor.model') onFailedModel(line, line.event === 'clock.expired' ? 'timeout' : 'cancelled');
    }
    if (to.endsWith('.think')) thinkAt = line.t;
    // A final state (`done`) has no turn cycle: the lines its entry writes (the accepted finish) belong to the phase before it.
    if (to.includes('.')) state = to;
  }

  function onTool(line: TraceLine) {
    const ms = num(line.ms) ?? 0;
    const { attributes, error } = toolAttributes(line, scope());
    const span = child(`${OPERATION.executeTool} ${str(line.name) ?? 'unknown'}`, SpanKind.INTERNAL, line.t - ms / 1000, attributes);
    endCall(span, line.t, error);
    const callId = str(line.id);
    if (line.name === 'delegate' && callId) mapChildren(trace.setSpan(run!.context, span), callId);
  }

  function onFinish(line: TraceLine) {
    const call = finishCalls.shift();
    const { attributes, error } = finishAttributes(line, call?.id, scope(callPhase || undefined));
    endCall(child(`${OPERATION.executeTool} finish`, SpanKind.INTERNAL, lastCallEnd ?? line.t, attributes), line.t, error, str(line.why));
  }

  function onStart(line: TraceLine, at: number) {
    runDir = str(line.runDir);
    if (runDir) facts.runId = basename(runDir);
    // The same id as the run's ATIF session_id, so spans and trajectory can be matched.
    facts.conversationId = sessionIdOf([line], '');
    facts.agentVersion = str(line.reinVersion) ?? facts.agentVersion;
    facts.model = str(line.model) ?? facts.model;
    facts.endpoint = str(line.endpoint) ?? facts.endpoint;
    endpoint = endpointFacts(facts.endpoint);
    openRun(at, line, false);
  }

  function line(entry: TraceLine) {
    if (typeof entry.t !== 'number' || typeof entry.kind !== 'string') return;
    if (entry.kind === 'start' || entry.kind === 'resume') {
      if (run) endRun(lastAt ?? entry.t, runStopAttributes('unfinished', 'the process stopped here without an end line; a later segment resumed it'));
      const before = early ?? [];
      early = null;
      // The segment starts with the first line its process wrote.
      if (entry.kind === 'start') onStart(entry, before[0]?.t ?? entry.t);
      else openRun(before[0]?.t ?? entry.t, null, true);
      for (const waiting of before) mapLine(waiting);
    } else if (early) {
      early.push(entry);
      return;
    } else if (!run) {
      // Lines after an end have no run to go to.
      if (ended) return;
      openRun(entry.t, null, false);
    }
    mapLine(entry);
  }

  function mapLine(entry: TraceLine) {
    lastAt = entry.t;
    if (entry.kind === 'mcp_server') noteMcpServer(mcpServers, entry);
    const link = childLinkOf(entry);
    if (link) children.set(link.child, link);
    const event = runEvent(entry, options.content);
    if (event) run!.span.addEvent(event.name, event.attributes, hrTime(entry.t));
    switch (entry.kind) {
      case 'transition':
        onTransition(entry);
        break;
      case 'model':
        onModel(entry);
        break;
      case 'tool':
        onTool(entry);
        break;
      case 'finish':
        onFinish(entry);
        break;
      case 'context':
        pending.push({ ...contextEvent(entry), at: entry.t });
        break;
      case 'retry':
        pending.push({ ...retryEvent(entry), at: entry.t });
        break;
      case 'end':
        endRun(entry.t, runEndAttributes(entry, options.content));
        break;
      case 'interrupted':
        if (state.endsWith('.think') && thinkAt !== undefined) onFailedModel(entry, 'cancelled');
        endRun(entry.t, runStopAttributes('interrupted', `interrupted in ${str(entry.state) ?? 'an unknown state'}`));
        break;
      case 'crash':
        endRun(entry.t, runStopAttributes('crashed', str(entry.error) ?? 'crashed'));
        break;
    }
  }

  return {
    line,
    close() {
      // A trace cut before its start line still shows what it holds, in one segment.
      if (early && early.length > 0) {
        const before = early;
        early = null;
        openRun(before[0]!.t, null, false);
        for (const waiting of before) mapLine(waiting);
      }
      // Children whose delegate call has no line (the parent was killed while they ran): under the run's span.
      if (children.size > 0 && lastRunContext) mapChildren(lastRunContext);
      if (run)
        endRun(
          lastAt ?? Date.now() / 1000,
          runStopAttributes('unfinished', 'the trace stops here without an end line (the process was killed, or is still running)'),
        );
    },
  };
}
