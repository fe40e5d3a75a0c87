import { fromPromise } from 'xstate';
import type { AssistantMessage, ChatMessage } from '../../context/messages.js';
import { messageChars } from '../../context/messages.js';
import { ReinError } from '../../lib/errors.js';
import type { ModelInput } from '../../machines/actor-contracts.js';
import type { ModelReply } from '../../machines/types.js';
import { renderCalls, type TextCallFormatName } from './text-calls/formats.js';
import { type Mangle, mangleArguments } from './text-calls/render.js';

/** One scripted tool call: `args` may be an object (serialized for you) or a raw string (to test bad JSON). */
export interface ScriptedCall {
  name: string;
  args?: unknown;
  id?: string;
}

/** One scripted reply; an Error makes that call fail instead. */
export type ScriptedReply = { content?: string | null; calls?: ScriptedCall[] } | Error;

/** What a reply function sees. */
export interface ScriptContext {
  /** 0-based index of this model call: the run's step count, so a resumed run continues the script where it was. */
  call: number;
  /** Text of the newest tool results and notes since the model's last message. */
  lastResults: string[];
}

export type Script = ScriptedReply[] | ((messages: readonly ChatMessage[], context: ScriptContext) => ScriptedReply | Promise<ScriptedReply>);

/** A scripted model and what it saw. */
export interface ScriptedModel {
  actor: ReturnType<typeof fromPromise<ModelReply, ModelInput>>;
  /** The messages of every call, copied when the call was made. */
  requests: ChatMessage[][];
  /** Throws when a list script has replies left over. */
  assertDone(): void;
}

/** Shorthand for a reply with tool calls. */
export function reply(...calls: ScriptedCall[]): ScriptedReply {
  return { content: null, calls };
}

/**
 * A reply that writes its calls as text (no `tool_calls`) in one format of the census, several joined as the family
 * joins them, as a model served without a tool parser does: test rules against it, with recovery on or off.
 *
 * @example textReply('kimi-k2', call('read_file', { path: 'a.py' }))
 */
export function textReply(format: TextCallFormatName, ...calls: ScriptedCall[]): ScriptedReply {
  const rendered = calls.map((scripted) => ({
    name: scripted.name,
    args: (typeof scripted.args === 'string' ? JSON.parse(scripted.args) : (scripted.args ?? {})) as Record<string, unknown>,
    ...(scripted.id ? { id: scripted.id } : {}),
  }));
  return { content: renderCalls(format, rendered) };
}

/**
 * A call whose arguments are bent as a gateway or a small model bends them (rein repairs and traces each).
 *
 * @example reply(mangledCall('read_file', { path: 'a.py' }, 'trailing-comma'))
 */
export function mangledCall(name: string, args: Record<string, unknown>, how: Mangle): ScriptedCall {
  return { name, args: mangleArguments(args, how) };
}

/** Shorthand for one tool call. */
export function call(name: string, args: unknown = {}, id?: string): ScriptedCall {
  return id === undefined ? { name, args } : { name, args, id };
}

/**
 * A model for tests and the demo: a list of replies, or a function of the
 * messages. Usage is estimated (4 chars a token); `cachedTokens` simulates a
 * provider prompt cache by counting the part of the request that repeats the
 * previous one exactly, so offline runs report a realistic cached share.
 *
 * @example const model = createScriptedModel([reply(call('run', { command: 'npm test' })), reply(call('finish', { summary: 'done' }))]);
 */
export function createScriptedModel(
  script: Script,
  options: { delayMs?: number; intake?: (reply: ModelReply, step: number, messages: readonly ChatMessage[]) => ModelReply } = {},
): ScriptedModel {
  const requests: ChatMessage[][] = [];
  let previous: readonly ChatMessage[] = [];
  let index = 0;
  const actor = fromPromise<ModelReply, ModelInput>(async ({ input, signal }) => {
    const callIndex = index++;
    requests.push(input.messages.slice());
    if (options.delayMs) await delay(options.delayMs, signal);
    const next =
      typeof script === 'function' ? await script(input.messages, { call: input.step, lastResults: lastResults(input.messages) }) : script[callIndex];
    if (next === undefined) throw new ReinError(`scripted model: no reply left for call ${callIndex + 1} (the script has ${callIndex})`);
    if (next instanceof Error) throw next;
    const usage = estimateUsage(input.messages, previous, next);
    previous = input.messages.slice();
    const reply: ModelReply = { message: toMessage(next, callIndex), usage };
    return options.intake ? options.intake(reply, input.step + 1, input.messages) : reply;
  });
  return {
    actor,
    requests,
    assertDone() {
      if (Array.isArray(script) && index < script.length)
        throw new ReinError(`scripted model: ${script.length - index} replies were never used (used ${index} of ${script.length})`);
    },
  };
}

function toMessage(next: Exclude<ScriptedReply, Error>, callIndex: number): AssistantMessage {
  const message: AssistantMessage = { role: 'assistant', content: next.content ?? null };
  if (next.calls && next.calls.length > 0) {
    message.tool_calls = next.calls.map((scripted, position) => ({
      id: scripted.id ?? `call_${callIndex + 1}_${position}`,
      type: 'function',
      function: { name: scripted.name, arguments: typeof scripted.args === 'string' ? scripted.args : JSON.stringify(scripted.args ?? {}) },
    }));
  }
  return message;
}

function estimateUsage(messages: readonly ChatMessage[], previous: readonly ChatMessage[], next: Exclude<ScriptedReply, Error>): ModelReply['usage'] {
  let total = 0;
  let cached = 0;
  let prefix = true;
  for (let position = 0; position < messages.length; position++) {
    const message = messages[position]!;
    const size = messageChars(message);
    total += size;
    if (prefix && position < previous.length && sameMessage(message, previous[position]!)) cached += size;
    else prefix = false;
  }
  const completion =
    (next.content?.length ?? 0) + (next.calls ?? []).reduce((sum, scripted) => sum + scripted.name.length + JSON.stringify(scripted.args ?? {}).length, 0);
  return { promptTokens: Math.ceil(total / 4), completionTokens: Math.ceil(completion / 4) + 1, cachedTokens: Math.floor(cached / 4) };
}

function sameMessage(a: ChatMessage, b: ChatMessage): boolean {
  return a === b || (a.role === b.role && a.content === b.content && JSON.stringify(a) === JSON.stringify(b));
}

function lastResults(messages: readonly ChatMessage[]): string[] {
  const results: string[] = [];
  for (let position = messages.length - 1; position >= 0; position--) {
    const message = messages[position]!;
    if (message.role === 'assistant') break;
    if (message.role === 'tool' || message.role === 'user') results.unshift(message.content);
  }
  return results;
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
