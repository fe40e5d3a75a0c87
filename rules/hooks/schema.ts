import { z } from 'zod';
import { claudeHookEvents, claudeHooks, unknownHookKey } from './claude-dialect.js';

/**
 * Lifecycle hooks: commands rein runs at named moments of a run, with the
 * event as JSON on stdin. See actors/hooks/run-hook.ts for the protocol,
 * actors/hooks/hook-launch.ts for where a command runs and README "Approvals and
 * hooks" for the fail-closed rule.
 */

export const HOOK_MOMENTS = ['preToolUse', 'postToolUse', 'phaseChange', 'beforeFinish', 'runEnd'] as const;
export type HookMoment = (typeof HOOK_MOMENTS)[number];

const hook = z.strictObject({
  command: z
    .string()
    .min(1)
    .optional()
    .describe('Shell command, run with sh -c in the workspace (where says in what: the run’s sandbox by default, or the host)'),
  function: z
    .string()
    .min(1)
    .optional()
    .describe('Or: the name of a function the .ts/.js rules file exports in `hookFunctions`, called with the event (returns the same answer a command prints)'),
  tools: z.string().min(1).default('*').describe('For preToolUse and postToolUse: tool name pattern the hook is for (mcp__* matches MCP tools)'),
  matcher: z
    .string()
    .optional()
    .describe(
      'For preToolUse and postToolUse, instead of tools: a Claude Code matcher (Bash|Edit, mcp__github__.*), tested against the tool’s Claude Code name (Bash for run) and its rein name',
    ),
  after: z
    .enum(['success', 'failure'])
    .optional()
    .describe('For postToolUse: only after a call that succeeded (Claude Code’s PostToolUse) or failed (PostToolUseFailure)'),
  timeoutSeconds: z.number().positive().default(30).describe('Seconds the hook may take; a hook that times out is reported and fails closed'),
  where: z
    .enum(['sandbox', 'host'])
    .default('sandbox')
    .describe(
      'Where a command runs. sandbox: in a fresh bubblewrap sandbox built from the run’s own permissions (what the run’s commands see, the workspace read-only, their network rule, environment and limits), so a script the agent rewrote cannot reach the host; on the host only when the run itself has no sandbox. host: on the host, for hooks that must reach it (a notification, a host-only tool); rein refuses a host command that names a path inside the workspace (keep such scripts in e.g. ~/.config/rein/hooks/), but a host hook running `npm run`, `make` or `pytest` still runs the repository’s code: that is your explicit choice. Function hooks run in rein itself and ignore it',
    ),
});
export type HookSpec = z.output<typeof hook>;

/** A hook written as a function in a rules module: gets the event, returns an answer (or nothing); a throw is a problem. */
export type HookFunction = (event: Record<string, unknown>) => unknown;

/** What a hook is called in the trace and in messages: its command, or `function <name>`. */
export function hookLabel(spec: HookSpec): string {
  return spec.command ?? `function ${spec.function ?? '?'}`;
}

const oneHook = hook.refine((value) => (value.command === undefined) !== (value.function === undefined), {
  message: 'expected exactly one of "command" or "function"',
});
const list = (what: string) => z.array(oneHook).default([]).describe(what);

const momentLists = {
  preToolUse: list('Before a tool call: may answer {"decision":"allow"|"deny"|"ask","message":…}; exit 2 denies; a crash or timeout denies'),
  postToolUse: list('After a tool call: may answer {"note":…}, added to that call’s result for the model; a crash is reported'),
  phaseChange: list('When the run enters another phase; its answer is ignored, a crash is reported'),
  beforeFinish: list('Before the gate judges a finish: {"decision":"deny","message":…} (or exit 2) refuses it with that reason; a crash or timeout refuses it'),
  runEnd: list('When the run ends (any status); a crash is reported'),
};

/** rein's moments, and Claude Code's events (`PreToolUse: [{ matcher, hooks: [...] }]`) folded into them after rein's own hooks of that moment. */
const hookKeys = { ...momentLists, ...claudeHookEvents };
export const hooksSchema = z
  .looseObject(hookKeys)
  .superRefine((value, context) => {
    for (const key of Object.keys(value))
      if (!(key in hookKeys)) context.addIssue({ code: 'custom', path: [key], message: unknownHookKey(key), input: value[key] });
  })
  .transform((value) => {
    const fromClaude = claudeHooks(value);
    const moments = Object.fromEntries(
      HOOK_MOMENTS.map((moment) => [moment, [...value[moment], ...(fromClaude[moment] ?? []).map((spec) => oneHook.parse(spec))]]),
    );
    return moments as { [M in HookMoment]: HookSpec[] };
  });
export type Hooks = z.output<typeof hooksSchema>;

/** Whether any hook is configured. */
export function hasHooks(hooks: Hooks): boolean {
  return HOOK_MOMENTS.some((moment) => hooks[moment].length > 0);
}
