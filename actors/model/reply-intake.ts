import type { AssistantMessage, ChatMessage, ToolCall } from '../../context/messages.js';
import { headTail } from '../../lib/head-tail.js';
import type { ArgumentsRepairedEvent, CallsRecoveredEvent } from '../../lib/trace/trace-events.js';
import type { ModelReply } from '../../machines/types.js';
import { type CallIdFormat, makeCallId } from '../../rules/call-ids.js';
import { repairArguments } from './argument-repair.js';
import { notRunNotice } from './text-calls/notice.js';
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
  /** What the model was shown from files, tool results and the user (`shownTexts`): a call it only repeats from there is not run. */
  shown?: readonly string[];
  /** Only calls in marked syntax are recovered: the endpoint has sent native calls this run, so bare JSON is the model's data. */
  markedOnly?: boolean;
  /** The ids the endpoint accepts back, for the id a repair's trace line names when the provider gave none. */
  callIds?: CallIdFormat;
}

/** What the intake did, for the trace. */
export type IntakeNote = Omit<CallsRecoveredEvent, 'kind'> | Omit<ArgumentsRepairedEvent, 'kind'>;

/**
 * A reply made ready for the machine: calls written as text recovered (when
 * the reply has no `tool_calls`), each call's arguments made JSON object text,
 * repairs and recoveries listed for the trace, and a notice for the model
 * about calls it wrote that were not run. Recovered calls keep the id the
 * model wrote with them; the machine gives ids to the rest (turn-cycle.ts).
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
  const shownId = (id: string, index: number) => id || makeCallId(options.callIds ?? 'any', { step, index });
  let recovered: Omit<CallsRecoveredEvent, 'kind'> | null = null;
  let notice: string | null = null;
  let calls: ToolCall[] = (wire.message.tool_calls ?? []).map((call, index) => {
    const fn = call.function ?? {};
    const name = typeof fn.name === 'string' ? fn.name : '';
    const id = typeof call.id === 'string' ? call.id : '';
    const { text, repair } = argumentsOf(fn.arguments, options.repair ?? true);
    if (repair) repairs.push({ step, id: shownId(id, index), name, repair: repair.kind, original: repair.original });
    return { id, type: 'function', function: { name, arguments: text } };
  });
  if (calls.length === 0 && content !== null && options.recover) {
    const found = recoverTextCalls(content, options.tools, {
      ...(options.shown ? { shownTexts: options.shown } : {}),
      markedOnly: options.markedOnly ?? false,
    });
    if (found) {
      calls = found.calls.map((call, index) => {
        const { text, repair } = argumentsOf(call.arguments, options.repair ?? true);
        const original = call.repairedFrom ?? repair?.original;
        if (call.repairedFrom || (repair && repair.kind !== 'object'))
          repairs.push({
            step,
            id: shownId(call.id ?? '', index),
            name: call.name,
            repair: repair?.kind === 'double_encoded' ? 'double_encoded' : 'lenient',
            original: original ?? text,
          });
        return { id: call.id ?? '', type: 'function', function: { name: call.name, arguments: text } };
      });
      if (calls.length > 0) message.content = found.content;
      notice = notRunNotice(found.notRun);
      recovered = {
        step,
        shapes: found.formats,
        calls: found.calls.map((call) => ({ ...(call.id ? { id: call.id } : {}), name: call.name, shape: call.format })),
        ...(found.ignored.length > 0 ? { ignored: found.ignored.map(({ format, ...rest }) => ({ shape: format, ...rest })) } : {}),
        ...(found.notRun.length > 0 ? { notRun: found.notRun.map(({ format, ...rest }) => ({ shape: format, ...rest })) } : {}),
        raw: headTail(content, RAW_CHARS),
      };
    }
  }
  if (calls.length > 0) message.tool_calls = calls;
  const reply: ModelReply = { ...wire, message };
  if (recovered && calls.length > 0) reply.recovered = { shapes: recovered.shapes, calls: calls.length };
  if (notice) reply.notice = notice;
  return { reply, recovered, repairs };
}

/**
 * The texts a reply's calls must not merely repeat: every tool result, and what the user and the repository said,
 * but not the harness's own notices (they name calls that were not run, and the model may rightly write those again).
 */
export function shownTexts(messages: readonly ChatMessage[]): string[] {
  return messages.flatMap((message) =>
    message.role === 'tool' || (message.role === 'user' && !message.content.startsWith('[harness]')) ? [message.content] : [],
  );
}

/** A call's arguments as text: repaired (and said so), or with repair off as sent, only an object or nothing written as JSON text. */
function argumentsOf(sent: unknown, repair: boolean): ReturnType<typeof repairArguments> {
  if (repair) return repairArguments(sent);
  if (typeof sent === 'string') return { text: sent };
  return { text: sent === undefined || sent === null ? '{}' : (JSON.stringify(sent) ?? '{}') };
}
