import type { HarnessContext } from './types.js';

/** Parameters a rule gives an action: `{ "action": "notify", "text": "…" }` passes `{ text: "…" }`. */
export type ActionParams = Record<string, unknown>;

/**
 * What a rule action may do: queue notices for the model (delivered as
 * `[harness] …` at the start of the next turn, after every tool result, so
 * the prompt cache and the call/result pairing hold) and add a line to the
 * trace. It reads the context; it cannot change control flow, which stays
 * with the guards.
 */
export interface RuleActionEffect {
  notices?: string[];
  trace?: Record<string, unknown>;
}

export type RuleAction = (context: HarnessContext, params: ActionParams) => RuleActionEffect | void;
export type RuleActionRegistry = Record<string, RuleAction>;

/** A rule action's return value, as far as it is usable: notices must be strings, the trace fields an object. */
export function checkEffect(value: unknown): { notices: string[]; trace: Record<string, unknown>; problem?: string } {
  if (value === undefined || value === null) return { notices: [], trace: {} };
  if (typeof value !== 'object') return { notices: [], trace: {}, problem: `returned ${typeof value}, not { notices?, trace? }` };
  const { notices, trace } = value as { notices?: unknown; trace?: unknown };
  const noticesOk = notices === undefined || (Array.isArray(notices) && notices.every((item) => typeof item === 'string'));
  const traceOk = trace === undefined || (typeof trace === 'object' && trace !== null && !Array.isArray(trace));
  return {
    notices: noticesOk && Array.isArray(notices) ? notices : [],
    trace: traceOk && trace ? trace as Record<string, unknown> : {},
    ...(!noticesOk ? { problem: 'notices must be an array of strings; ignored' } : !traceOk ? { problem: 'trace must be an object; ignored' } : {}),
  };
}

/** Actions every rules file may name. */
export const builtInActions: RuleActionRegistry = {
  /** Tell the model something: `{ "action": "notify", "text": "Run the linter before finishing." }`; `{todo}` lists open todo items. */
  notify: (context, params) => ({ notices: [fillTodo(String(params.text), context)] }),
  /** A line in the trace only (the model sees nothing): `{ "action": "mark", "label": "entered fix" }`. */
  mark: (_context, params) => ({ trace: { label: String(params.label) } }),
};

/** The parameters each built-in action takes, all required strings; actions registered from code take any. */
export const ACTION_PARAMS: Readonly<Record<string, readonly string[]>> = { notify: ['text'], mark: ['label'] };

function fillTodo(text: string, context: HarnessContext): string {
  const open = context.facts.todo.filter((item) => !item.done).map((item) => item.task);
  return text.replaceAll('{todo}', open.length > 0 ? open.join('; ') : 'none');
}
