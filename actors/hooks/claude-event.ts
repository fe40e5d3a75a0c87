import type { HooksInput } from '../../machines/actor-contracts.js';
import { claudeToolInput, claudeToolName } from '../../rules/hooks/claude-tools.js';

/** The run as Claude Code's common hook fields name it. */
export interface HookSession {
  /** session_id: the run's id (its run directory's name). */
  id: string;
  /** transcript_path: the run's record, one JSON message a line. */
  transcriptPath: string;
  /** cwd: the workspace; file paths in tool_input are absolute below it. */
  cwd: string;
}

/** Claude Code's event name for each rein moment (phaseChange has none and keeps rein's). */
const EVENT_NAME = { preToolUse: 'PreToolUse', postToolUse: 'PostToolUse', phaseChange: 'phaseChange', beforeFinish: 'Stop', runEnd: 'SessionEnd' } as const;

/**
 * The fields Claude Code gives a hook on stdin, for the same event, so a Claude Code hook script reads what it
 * expects: `session_id`, `transcript_path`, `cwd`, `hook_event_name`, and by event `tool_name`, `tool_input`,
 * `tool_use_id`, `tool_response` (`error` after a failed call), `stop_hook_active` and `last_assistant_message`. They sit beside rein's own fields (`moment`, `phase`, `step`, `call`, `result`, …).
 *
 * @example claudeEventFields(input, event, { session, stopHookActive: false }).tool_name // 'Bash' for a run call
 */
export function claudeEventFields(
  input: HooksInput,
  event: Record<string, unknown>,
  options: { session: HookSession; stopHookActive: boolean },
): Record<string, unknown> {
  const { session } = options;
  const common = { session_id: session.id, transcript_path: session.transcriptPath, cwd: session.cwd };
  const call = (event.call ?? {}) as { id?: string; tool?: string; args?: unknown };
  const tool = {
    tool_name: claudeToolName(call.tool ?? input.tool ?? ''),
    tool_input: claudeToolInput(call.tool ?? input.tool ?? '', call.args, session.cwd),
    tool_use_id: call.id ?? '',
  };
  switch (input.moment) {
    case 'preToolUse':
      return { ...common, hook_event_name: EVENT_NAME.preToolUse, ...tool };
    case 'postToolUse': {
      const result = (event.result ?? {}) as { ok?: boolean; content?: string; effect?: unknown; ms?: number };
      const failed = input.outcome === 'failure';
      return {
        ...common,
        hook_event_name: failed ? 'PostToolUseFailure' : EVENT_NAME.postToolUse,
        ...tool,
        tool_response: toolResponse(tool.tool_name, result),
        ...(failed ? { error: result.content ?? '' } : {}),
        ...(result.ms !== undefined ? { duration_ms: result.ms } : {}),
      };
    }
    case 'beforeFinish': {
      const summary = (call.args as { summary?: unknown } | undefined)?.summary;
      return {
        ...common,
        hook_event_name: EVENT_NAME.beforeFinish,
        stop_hook_active: options.stopHookActive,
        last_assistant_message: typeof summary === 'string' ? summary : '',
      };
    }
    case 'runEnd':
      // rein's own `reason` (why the run ended) is kept; Claude Code's SessionEnd reason is `other` when there is none.
      return { ...common, hook_event_name: EVENT_NAME.runEnd, ...(event.reason === undefined ? { reason: 'other' } : {}) };
    default:
      return { ...common, hook_event_name: EVENT_NAME[input.moment] };
  }
}

/** tool_response: rein's result, with Claude Code's fields for a command (stdout) and a file edit (filePath, success). */
function toolResponse(claudeName: string, result: { ok?: boolean; content?: string; effect?: unknown }): Record<string, unknown> {
  const base = { ok: result.ok ?? false, content: result.content ?? '', effect: result.effect ?? null };
  if (claudeName === 'Bash') return { ...base, stdout: result.content ?? '', stderr: '', interrupted: false, isImage: false };
  if (claudeName === 'Edit') return { ...base, success: result.ok ?? false };
  return base;
}
