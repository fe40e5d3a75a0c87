import { MANGLES, mangleArguments, renderCalls, type Script, type ScriptedReply, TEXT_CALL_FORMATS, type TextCallFormatName } from 'rein/actors';

/** How a simulated model's replies are reshaped: every call written as text in one census format, or every call's arguments bent. */
export type ReplyShape = { text: TextCallFormatName } | 'mangled';

/** The prefix of a simulated model name that writes its calls as text in a census format: `text-calls:kimi-k2`. */
const TEXT_CALLS = 'text-calls';

/** Formats whose template says a reply that calls a tool holds nothing else (no prose before the calls). */
const CALLS_ALONE = new Set<TextCallFormatName>(['llama3-json', 'llama3-python-tag', 'pythonic', 'llama4-python-start', 'xlam', 'llamacpp-generic']);

/**
 * The reply shape a simulated model name stands for: `text-calls` writes Hermes blocks,
 * `text-calls:FORMAT` any census format, `mangled-arguments` bends arguments; null for other names.
 *
 * @example replyShapeOf('text-calls:harmony') // { text: 'harmony' }
 */
export function replyShapeOf(name: string): ReplyShape | null {
  if (name === 'mangled-arguments') return 'mangled';
  if (name === TEXT_CALLS) return { text: 'hermes' };
  if (!name.startsWith(`${TEXT_CALLS}:`)) return null;
  const format = name.slice(TEXT_CALLS.length + 1);
  return format in TEXT_CALL_FORMATS ? { text: format as TextCallFormatName } : null;
}

/** Whether a name is a text-calling model of an unknown format (for the task check's message). */
export function unknownTextFormat(name: string): string | null {
  if (!name.startsWith(`${TEXT_CALLS}:`) || replyShapeOf(name)) return null;
  return `unknown text-call format "${name.slice(TEXT_CALLS.length + 1)}"; known: ${Object.keys(TEXT_CALL_FORMATS).join(', ')}`;
}

/**
 * A script whose replies are reshaped: a text shape writes every call in the
 * format's own text (no `tool_calls`), its prose as the family's reasoning where
 * it has one; `mangled` bends every call's arguments in turn through the ways
 * rein repairs. The script's decisions are unchanged.
 *
 * @example reshapeScript(script, [{ text: 'kimi-k2' }]) // each call now in a Kimi tool-call section
 */
export function reshapeScript(script: Script, shapes: readonly ReplyShape[]): Script {
  if (shapes.length === 0 || Array.isArray(script)) return script;
  let mangles = 0;
  const text = shapes.find((shape): shape is { text: TextCallFormatName } => shape !== 'mangled');
  const reshape = (next: ScriptedReply): ScriptedReply => {
    if (next instanceof Error || !next.calls || next.calls.length === 0) return next;
    let calls = next.calls;
    if (shapes.includes('mangled'))
      calls = calls.map((scripted) =>
        scripted.args && typeof scripted.args === 'object' && !Array.isArray(scripted.args)
          ? { ...scripted, args: mangleArguments(scripted.args as Record<string, unknown>, MANGLES[mangles++ % MANGLES.length]!) }
          : scripted,
      );
    if (!text) return { ...next, calls };
    const rendered = calls.map((scripted) => ({
      name: scripted.name,
      args: (typeof scripted.args === 'string' ? JSON.parse(scripted.args) : (scripted.args ?? {})) as Record<string, unknown>,
    }));
    const prose = CALLS_ALONE.has(text.text) ? undefined : (next.content ?? undefined);
    return { content: renderCalls(text.text, rendered, prose) };
  };
  return async (messages, context) => reshape(await script(messages, context));
}
