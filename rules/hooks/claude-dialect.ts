import { z } from 'zod';

/**
 * Claude Code's hook settings, read as rein hooks, so a `"hooks"` block copied from a `.claude/settings.json`
 * works as it is: event → matcher groups → handlers (`{ "PreToolUse": [{ "matcher": "Bash|Edit", "hooks":
 * [{ "type": "command", "command": "…" }] }] }`). Each event is one of rein's moments; an event rein has no
 * moment for is refused by name rather than ignored. The shape follows Claude Code's hooks reference
 * (code.claude.com/docs/en/hooks, "Hook configuration"); test/rules/hooks/claude-hooks.test.ts runs real
 * hook scripts written for it.
 */

/** Claude Code's events that have a rein moment, and which: PostToolUse only after a call that succeeded, PostToolUseFailure after one that failed. */
const CLAUDE_EVENTS = {
  PreToolUse: { moment: 'preToolUse' },
  PostToolUse: { moment: 'postToolUse', after: 'success' },
  PostToolUseFailure: { moment: 'postToolUse', after: 'failure' },
  Stop: { moment: 'beforeFinish' },
  SessionEnd: { moment: 'runEnd' },
} as const;
type ClaudeEvent = keyof typeof CLAUDE_EVENTS;

/** Claude Code's other events: refused with the reason, because a hook the person wrote must never be dropped in silence. */
const CLAUDE_EVENTS_WITHOUT_MOMENT = [
  'SessionStart',
  'Setup',
  'UserPromptSubmit',
  'UserPromptExpansion',
  'PermissionRequest',
  'PermissionDenied',
  'PostToolBatch',
  'Notification',
  'MessageDisplay',
  'SubagentStart',
  'SubagentStop',
  'TaskCreated',
  'TaskCompleted',
  'StopFailure',
  'TeammateIdle',
  'InstructionsLoaded',
  'ConfigChange',
  'CwdChanged',
  'DirectoryAdded',
  'FileChanged',
  'WorktreeCreate',
  'WorktreeRemove',
  'PreCompact',
  'PostCompact',
  'Elicitation',
  'ElicitationResult',
] as const;

/** Claude Code's default timeout for a command hook, in seconds. */
const CLAUDE_TIMEOUT_SECONDS = 600;

const handler = z.strictObject({
  type: z.literal('command', { error: 'rein runs only "type": "command" hooks (not http, prompt, agent or mcp_tool)' }),
  command: z.string().min(1).describe('Shell command, run with sh -c in the workspace, in a sandbox of its own'),
  timeout: z
    .number()
    .positive()
    .optional()
    .describe(`Seconds the hook may take (default ${CLAUDE_TIMEOUT_SECONDS}, as in Claude Code); a timeout fails closed`),
  statusMessage: z.string().optional().describe('Shown by Claude Code while the hook runs; rein traces every hook instead'),
});

const matcherGroup = z.strictObject({
  matcher: z
    .string()
    .optional()
    .refine((value) => value === undefined || claudeMatcher(value) !== null, { message: 'not a valid JavaScript regular expression' })
    .describe(
      'Which tools: "*", "" or none for all; letters, digits, _, -, spaces, "," and "|" for exact names (Bash|Edit); anything else a regular expression (mcp__github__.*)',
    ),
  hooks: z.array(handler).min(1),
});

/** The Claude Code event keys `hooks` accepts, beside rein's own moments. */
export const claudeHookEvents = Object.fromEntries(
  Object.keys(CLAUDE_EVENTS).map((event) => [
    event,
    z
      .array(matcherGroup)
      .optional()
      .describe(`Claude Code's ${event} event (rein's ${CLAUDE_EVENTS[event as ClaudeEvent].moment})`),
  ]),
) as Record<ClaudeEvent, z.ZodOptional<z.ZodArray<typeof matcherGroup>>>;

/**
 * What is wrong with a key `hooks` does not know: a Claude Code event rein has no moment for is named as such
 * (a hook the person wrote is never dropped in silence), anything else is unknown.
 *
 * @example unknownHookKey('UserPromptSubmit') // "Claude Code's UserPromptSubmit event has no moment in rein; …"
 */
export function unknownHookKey(key: string): string {
  const known = `rein runs hooks at ${Object.keys(CLAUDE_EVENTS).join(', ')} (Claude Code's names) and preToolUse, postToolUse, phaseChange, beforeFinish, runEnd (its own)`;
  return (CLAUDE_EVENTS_WITHOUT_MOMENT as readonly string[]).includes(key)
    ? `Claude Code's ${key} event has no moment in rein; ${known}`
    : `unknown key "${key}": ${known}`;
}

/** One Claude Code handler as a rein hook spec (before rein's defaults are filled in). */
interface ClaudeHookSpec {
  command: string;
  matcher?: string;
  after?: 'success' | 'failure';
  timeoutSeconds: number;
}

/**
 * The rein hooks a Claude Code settings block stands for, per rein moment, in the order written.
 *
 * @example claudeHooks({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'check.sh' }] }] }).preToolUse // [{ command: 'check.sh', matcher: 'Bash', timeoutSeconds: 600 }]
 */
export function claudeHooks(events: Partial<Record<ClaudeEvent, z.output<typeof matcherGroup>[]>>): Record<string, ClaudeHookSpec[]> {
  const moments: Record<string, ClaudeHookSpec[]> = {};
  for (const event of Object.keys(CLAUDE_EVENTS) as ClaudeEvent[]) {
    const target = CLAUDE_EVENTS[event];
    for (const group of events[event] ?? [])
      for (const entry of group.hooks) {
        // Claude Code ignores a matcher on events without tools (Stop, SessionEnd); so does rein.
        const matcher = target.moment === 'preToolUse' || target.moment === 'postToolUse' ? group.matcher : undefined;
        const list = moments[target.moment] ?? [];
        moments[target.moment] = list;
        list.push({
          command: entry.command,
          ...(matcher !== undefined ? { matcher } : {}),
          ...('after' in target ? { after: target.after } : {}),
          timeoutSeconds: entry.timeout ?? CLAUDE_TIMEOUT_SECONDS,
        });
      }
  }
  return moments;
}

/**
 * Claude Code's matcher rules: `*`, `""` or none match every tool; a value of only letters, digits, `_`, `-`,
 * spaces, `,` and `|` is a list of exact names; anything else is an unanchored JavaScript regular expression.
 * Null for a regular expression that does not compile.
 *
 * @example claudeMatcher('Bash|Edit')?.('Edit') // true
 */
export function claudeMatcher(matcher: string | undefined): ((name: string) => boolean) | null {
  const text = (matcher ?? '').trim();
  if (text === '' || text === '*') return () => true;
  if (/^[A-Za-z0-9_\- ,|]+$/.test(text)) {
    const names = new Set(text.split(/[|,]/).map((name) => name.trim()));
    return (name) => names.has(name);
  }
  try {
    const pattern = new RegExp(text);
    return (name) => pattern.test(name);
  } catch {
    return null;
  }
}
