import { UsageError } from '../../lib/errors.js';
import { MIN_COMPLETION_TOKENS } from '../../machines/budgets.js';
import type { Rules } from '../../rules/schema.js';
import { toolSchemas } from '../../tools/index.js';
import { selectTools } from '../../tools/select-tools.js';
import type { AnyTool } from '../../tools/types.js';

/**
 * Refuses a task that cannot fit the model's context window, with the
 * numbers, before anything of the run exists. The task is never shortened, so
 * a first request of the system prompt, rein's tool definitions and the task,
 * with room for the shortest answer, must fit `context.windowTokens` at
 * `context.charsPerToken` (the estimate the run starts with). Anything that
 * fits goes ahead: the context manager makes room as the run grows.
 *
 * @example checkTaskFits({ task, rules, tools }) // throws UsageError for a 200,000-character task in a 32,768-token window
 */
export function checkTaskFits(options: { task: string; rules: Rules; tools?: readonly AnyTool[] }): void {
  const { windowTokens, charsPerToken } = options.rules.context;
  const tokens = (chars: number) => Math.ceil(chars / charsPerToken);
  const taskChars = options.task.trim().length;
  const schemas = options.tools ? toolSchemas(selectTools(options.tools, options.rules.tools.enabled)) : [];
  const overhead = tokens(options.rules.systemPrompt.length + JSON.stringify(schemas).length);
  const needed = tokens(taskChars) + overhead + MIN_COMPLETION_TOKENS;
  if (needed <= windowTokens) return;
  throw new UsageError(
    `the task does not fit the model's context window: it is about ${count(tokens(taskChars))} tokens (${count(taskChars)} characters at ${charsPerToken} characters a token), and with the system prompt and tool definitions (about ${count(overhead)} tokens) and room for an answer (${MIN_COMPLETION_TOKENS}) the first request needs ${count(needed)}, more than the window of ${count(windowTokens)} (context.windowTokens); shorten the task, or give the model's real window with --context-window`,
  );
}

function count(value: number): string {
  return value.toLocaleString('en-US');
}
