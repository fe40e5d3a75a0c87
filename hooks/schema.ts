import { z } from 'zod';

/**
 * Lifecycle hooks: commands rein runs at named moments of a run, with the
 * event as JSON on stdin. See hooks/run-hook.ts for the protocol and
 * README "Approvals and hooks" for the fail-closed rule.
 */

export const HOOK_MOMENTS = ['preToolUse', 'postToolUse', 'phaseChange', 'beforeFinish', 'runEnd'] as const;
export type HookMoment = (typeof HOOK_MOMENTS)[number];

const hook = z.strictObject({
  command: z.string().min(1).describe('Shell command (run with sh -c in the workspace, outside the sandbox: it is your code, not the agent’s)'),
  tools: z.string().min(1).default('*').describe('For preToolUse and postToolUse: tool name pattern the hook is for (mcp__* matches MCP tools)'),
  timeoutSeconds: z.number().positive().default(30).describe('Seconds the hook may take; a hook that times out is reported and fails closed'),
});
export type HookSpec = z.output<typeof hook>;

const list = (what: string) => z.array(hook).default([]).describe(what);

export const hooksSchema = z.strictObject({
  preToolUse: list('Before a tool call: may answer {"decision":"allow"|"deny"|"ask","message":…}; exit 2 denies; a crash or timeout denies'),
  postToolUse: list('After a tool call: may answer {"note":…}, added for the model after the turn’s results; a crash is reported'),
  phaseChange: list('When the run enters another phase; its answer is ignored, a crash is reported'),
  beforeFinish: list('Before the gate judges a finish: {"decision":"deny","message":…} (or exit 2) refuses it with that reason; a crash or timeout refuses it'),
  runEnd: list('When the run ends (any status); a crash is reported'),
});
export type Hooks = z.output<typeof hooksSchema>;

/** Whether any hook is configured. */
export function hasHooks(hooks: Hooks): boolean {
  return HOOK_MOMENTS.some((moment) => hooks[moment].length > 0);
}
