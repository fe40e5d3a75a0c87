import type { TodoItem, ToolEffect, ToolOutcome } from '../tools/types.js';

/** A tool result for a transition test, without running the tool. `name` and `args` identify the action. */
export interface ResultSpec {
  name: string;
  args?: unknown;
  outcome: ToolOutcome;
}

const outcome = (content: string, ok: boolean, effect: ToolEffect): ToolOutcome => ({ content, ok, effect });

/**
 * An edit that was applied. `versions` are the file's content before and
 * after it (any short strings): the stall detector tells a new version of a
 * file from a return to an earlier one by them. Without them every edit
 * counts as a new version.
 */
export function edited(path: string, versions?: { before: string; after: string }): ResultSpec {
  const echo = versions ? `Edit applied.\n[${path} @ ${versions.after}]` : `Edit applied.\n[${path}]`;
  return {
    name: 'edit_file',
    args: { path, ...(versions ? { new: versions.after } : {}) },
    outcome: outcome(echo, true, { kind: 'edit', path, applied: true, ...versions }),
  };
}

/** An edit the guard rejected (file unchanged). */
export function rejectedEdit(path: string, why = 'Syntax error'): ResultSpec {
  return { name: 'edit_file', args: { path }, outcome: outcome(`Edit rejected, file unchanged. ${why}`, true, { kind: 'edit', path, applied: false }) };
}

/** A command that ran with this exit code and output. */
export function ran(command: string, exitCode: number, output = ''): ResultSpec {
  return {
    name: 'run',
    args: { command },
    outcome: outcome(`exit=${exitCode}\n${output}`, true, { kind: 'command', command, exitCode, timedOut: false, blocked: false }),
  };
}

/** A command a stopped run had started, reported on resume instead of being run again. */
export function interrupted(command: string): ResultSpec {
  return {
    name: 'run',
    args: { command },
    outcome: outcome('exit=interrupted\nNot run again.', false, {
      kind: 'command',
      command,
      exitCode: null,
      timedOut: false,
      blocked: false,
      interrupted: true,
    }),
  };
}

/** A command refused by the deny list (`reason`: the rule that matched). */
export function blocked(command: string, reason = 'privilege escalation (sudo, doas, pkexec, su)'): ResultSpec {
  return {
    name: 'run',
    args: { command },
    outcome: outcome(`Blocked by policy: ${reason}. Choose a safer action.`, false, {
      kind: 'command',
      command,
      exitCode: null,
      timedOut: false,
      blocked: true,
      blockedBy: reason,
    }),
  };
}

/** A file read (the content decides whether repeats count as the same result). */
export function read(path: string, content = `[${path}: lines 1-1 of 1; 0 above, 0 below]`): ResultSpec {
  return { name: 'read_file', args: { path }, outcome: outcome(content, true, { kind: 'read', path }) };
}

/** A grep search. */
export function searched(pattern: string, content = 'No matches.'): ResultSpec {
  return { name: 'grep', args: { pattern }, outcome: outcome(content, true, { kind: 'search', pattern }) };
}

/** A todo list written with update_todo. */
export function todo(items: TodoItem[]): ResultSpec {
  return { name: 'update_todo', args: { items }, outcome: outcome('Todo:', true, { kind: 'todo', items }) };
}

/** A call that failed with a tool error. */
export function toolError(name: string, message: string, args: unknown = {}): ResultSpec {
  return { name, args, outcome: outcome(`Tool error: ${message}`, false, { kind: 'none' }) };
}

/** A call the approval rules or an answer denied: it did not run, its result says so (the tool actor's denial text). */
export function denied(name: string, content: string, args: unknown = {}): ResultSpec {
  return { name, args, outcome: outcome(content, false, { kind: 'none' }) };
}
