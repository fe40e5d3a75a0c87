import type { AssistantMessage, ToolCall } from '../../context/messages.js';
import { headTail } from '../../lib/head-tail.js';
import { shortHash } from '../../lib/short-hash.js';
import type { ArgumentsRepairedEvent, CallsRecoveredEvent } from '../../lib/trace/trace-events.js';
import type { ModelReply } from '../../machines/types.js';
import { repairArguments } from './argument-repair.js';
import { recoverTextCalls } from './text-calls/recover.js';
import type { ToolList } from './text-calls/tool-list.js';

/** A reply as an endpoint sent it: calls may lack ids, and arguments may be any JSON value. */
export type WireReply = Omit<ModelReply, 'message'> & {
  message: { role: 'assistant'; content: string | null; tool_calls?: Array<{ id?: unknown; function?: { name?: unknown; arguments?: unknown } }> };
};

/** Characters of a recovered reply's raw text kept in its trace line. */
const RAW_CHARS = 20_000;

interface IntakeOptions {
  tools: ToolList;
  /** Off: calls written as text stay text (`rein eval` measures what recovery is worth). */
  recover: boolean;
  /** Off: arguments go to the tools as sent (an object is still written as its JSON text); the tool runner answers what does not parse. */
  repair?: boolean;
}

/** What the intake did, for the trace. */
export type IntakeNote = Omit<CallsRecoveredEvent, 'kind'> | Omit<ArgumentsRepairedEvent, 'kind'>;

/**
 * A reply made ready for the machine: calls written as text recovered (when
 * the reply has no `tool_calls`), each call's arguments made JSON object text,
 * repairs and recoveries listed for the trace. Recovered calls get ids from
 * the step, their position and their content, the same on every replay.
 *
 * @example const { reply, recovered, repairs } = takeReply(wire, 3, { tools: toolList(schemas), recover: true });
 */
export function takeReply(
  wire: WireReply,
  step: number,
  options: IntakeOptions,
): { reply: ModelReply; recovered: Omit<CallsRecoveredEvent, 'kind'> | null; repairs: Array<Omit<ArgumentsRepairedEvent, 'kind'>> } {
  const content = typeof wire.message.content === 'string' ? wire.message.content : null;
  const repairs: Array<Omit<ArgumentsRepairedEvent, 'kind'>> = [];
  const message: AssistantMessage = { role: 'assistant', content };
  let recovered: Omit<CallsRecoveredEvent, 'kind'> | null = null;
  let calls: ToolCall[] = (wire.message.tool_calls ?? []).map((call, index) => {
    const fn = call.function ?? {};
    const name = typeof fn.name === 'string' ? fn.name : '';
    const id = typeof call.id === 'string' ? call.id : '';
    const { text, repair } = argumentsOf(fn.arguments, options.repair ?? true);
    if (repair) repairs.push({ step, id: id || `call_${step}_${index}`, name, repair: repair.kind, original: repair.original });
    return { id, type: 'function', function: { name, arguments: text } };
  });
  if (calls.length === 0 && content !== null && options.recover) {
    const found = recoverTextCalls(content, options.tools);
    if (found) {
      calls = found.calls.map((call, index) => {
        const { text, repair } = argumentsOf(call.arguments, options.repair ?? true);
        const id = `call_${step}_${index}_text_${shortHash(`${call.name}\u0000${text}`).replace(':', '_')}`;
        const original = call.repairedFrom ?? repair?.original;
        if (call.repairedFrom || (repair && repair.kind !== 'object'))
          repairs.push({ step, id, name: call.name, repair: repair?.kind === 'double_encoded' ? 'double_encoded' : 'lenient', original: original ?? text });
        return { id, type: 'function', function: { name: call.name, arguments: text } };
      });
      message.content = found.content;
      recovered = {
        step,
        shapes: found.shapes,
        calls: calls.map((call, index) => ({ id: call.id, name: call.function.name, shape: found.calls[index]!.shape })),
        ...(found.ignored.length > 0 ? { ignored: found.ignored } : {}),
        raw: headTail(content, RAW_CHARS),
      };
    }
  }
  if (calls.length > 0) message.tool_calls = calls;
  const reply: ModelReply = { ...wire, message };
  if (recovered) reply.recovered = { shapes: recovered.shapes, calls: calls.length };
  return { reply, recovered, repairs };
}

/** A call's arguments as text: repaired (and said so), or with repair off as sent, only an object or nothing written as JSON text. */
function argumentsOf(sent: unknown, repair: boolean): ReturnType<typeof repairArguments> {
  if (repair) return repairArguments(sent);
  if (typeof sent === 'string') return { text: sent };
  return { text: sent === undefined || sent === null ? '{}' : (JSON.stringify(sent) ?? '{}') };
}
