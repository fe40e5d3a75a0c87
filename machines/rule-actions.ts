import { UsageError } from '../lib/errors.js';
import type { GuardView } from './guards/guard-view.js';

/** Parameters a rule gives an action: `{ "action": "notify", "text": "…" }` passes `{ text: "…" }`. */
export type ActionParams = Record<string, unknown>;

/**
 * What a rule action may do: queue notices for the model (delivered as
 * `[harness] …` at the start of the next turn, after every tool result, so
 * the prompt cache and the call/result pairing hold) and add a line to the
 * trace. It reads the guard view; it cannot change control flow, which stays
 * with the guards.
 */
export interface RuleActionEffect {
  notices?: string[];
  trace?: Record<string, unknown>;
}

export type RuleAction = (view: GuardView, params: ActionParams) => RuleActionEffect | undefined;
export type RuleActionRegistry = Record<string, RuleAction | { run: RuleAction; override?: boolean }>;

/** A rule action's return value, as far as it is usable: notices must be strings, the trace fields an object. */
export function checkEffect(value: unknown): { notices: string[]; trace: Record<string, unknown>; problem?: string } {
  if (value === undefined || value === null) return { notices: [], trace: {} };
  if (typeof value !== 'object') return { notices: [], trace: {}, problem: `returned ${typeof value}, not { notices?, trace? }` };
  const { notices, trace } = value as { notices?: unknown; trace?: unknown };
  const noticesOk = notices === undefined || (Array.isArray(notices) && notices.every((item) => typeof item === 'string'));
  const traceOk = trace === undefined || (typeof trace === 'object' && trace !== null && !Array.isArray(trace));
  return {
    notices: noticesOk && Array.isArray(notices) ? notices : [],
    trace: traceOk && trace ? (trace as Record<string, unknown>) : {},
    ...(!noticesOk ? { problem: 'notices must be an array of strings; ignored' } : !traceOk ? { problem: 'trace must be an object; ignored' } : {}),
  };
}

/** Actions every rules file may name. */
export const builtInActions = {
  /** Tell the model something: `{ "action": "notify", "text": "Run the linter before finishing." }`; `{todo}` lists open todo items. */
  notify: (view: GuardView, params: ActionParams) => ({ notices: [fillTodo(String(params.text), view)] }),
  /** A line in the trace only (the model sees nothing): `{ "action": "mark", "label": "entered fix" }`. */
  mark: (_view: GuardView, params: ActionParams) => ({ trace: { label: String(params.label) } }),
} satisfies Record<string, RuleAction>;

/** The parameters each built-in action takes, all required strings; actions registered from code take any. */
export const ACTION_PARAMS: Readonly<Record<string, readonly string[]>> = { notify: ['text'], mark: ['label'] };

function fillTodo(text: string, view: GuardView): string {
  const open = view.facts.todo.filter((item) => !item.done).map((item) => item.task);
  return text.replaceAll('{todo}', open.length > 0 ? open.join('; ') : 'none');
}

/** A registered action after checking, with the name the machine gives it. */
export interface RegisteredAction {
  name: string;
  run: RuleAction;
  overrides: boolean;
}

/**
 * Checks a rules module's actions: each a function or `{ run, override? }`;
 * a built-in may only be replaced with `override: true`.
 */
export function registerActions(registry: RuleActionRegistry, source: string): RegisteredAction[] {
  return Object.entries(registry).map(([name, entry]) => {
    const definition =
      typeof entry === 'function' ? { run: entry } : typeof entry === 'object' && entry !== null && typeof entry.run === 'function' ? entry : null;
    if (!definition) throw new UsageError(`${source}: actions.${name}: expected a function (view, params) => ({ notices?, trace? }), or { run, override? }`);
    const builtIn = Object.hasOwn(builtInActions, name);
    if (builtIn && definition.override !== true) {
      throw new UsageError(
        `${source}: actions.${name}: a built-in action has this name. To replace it, say so: { ${name}: { override: true, run: (view, params) => … } }; or give yours another name`,
      );
    }
    if (!builtIn && definition.override === true)
      throw new UsageError(`${source}: actions.${name}: override: true, but there is no built-in action "${name}" to replace`);
    return { name, run: definition.run, overrides: builtIn };
  });
}
