import { MANGLES, mangleArguments, renderTextCall, type Script, type ScriptedReply } from 'rein/actors';

/** Simulated models that behave as `careful` but speak the way some endpoints do: their calls as text, or their arguments bent. */
export const REPLY_SHAPES = { 'text-calls': 'text', 'mangled-arguments': 'mangled' } as const;

/**
 * A script whose replies are reshaped: `text` writes every call as a Hermes
 * block in the content (no `tool_calls`), `mangled` bends every call's
 * arguments in turn through the ways rein repairs. The script's decisions are unchanged.
 *
 * @example reshapeScript(script, ['text']) // each call now a <tool_call> block
 */
export function reshapeScript(script: Script, shapes: ReadonlyArray<'text' | 'mangled'>): Script {
  if (shapes.length === 0 || Array.isArray(script)) return script;
  let mangles = 0;
  const reshape = (next: ScriptedReply): ScriptedReply => {
    if (next instanceof Error || !next.calls || next.calls.length === 0) return next;
    let calls = next.calls;
    if (shapes.includes('mangled'))
      calls = calls.map((scripted) =>
        scripted.args && typeof scripted.args === 'object' && !Array.isArray(scripted.args)
          ? { ...scripted, args: mangleArguments(scripted.args as Record<string, unknown>, MANGLES[mangles++ % MANGLES.length]!) }
          : scripted,
      );
    if (!shapes.includes('text')) return { ...next, calls };
    const blocks = calls.map((scripted) =>
      renderTextCall('hermes', scripted.name, typeof scripted.args === 'string' ? JSON.parse(scripted.args) : (scripted.args ?? {})),
    );
    return { content: [next.content ?? '', ...blocks].filter(Boolean).join('\n') };
  };
  return async (messages, context) => reshape(await script(messages, context));
}
