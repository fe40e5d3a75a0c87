import { editFileTool } from './edit-file.js';
import { finishTool } from './finish.js';
import { grepTool } from './grep.js';
import { jobTool } from './job.js';
import { readFileTool } from './read-file.js';
import { runTool } from './run.js';
import type { AnyTool } from './types.js';
import { updateTodoTool } from './update-todo.js';

export type { VisibilitySummary } from '../process/describe-visibility.js';
export { DEFAULT_ENV_ALLOW } from '../process/environment.js';
export type { JobState, JobView } from '../process/job-store.js';
export { createRunSandbox, type RunSandbox, type RunSandboxOptions } from '../process/run-sandbox.js';
export { describeSandbox, resolveSandbox, type SandboxMode } from '../process/sandbox.js';
export { checkCommand, compileDenyPatterns, DENY_RULES } from './deny-list.js';
export { headTail } from './shape.js';
export { type ParsedArguments, parseToolArguments } from './tool-arguments.js';
export { type FunctionToolSchema, toolSchemas, toolSchemasJson } from './tool-schemas.js';
export type * from './types.js';
export { formatTodo, PROGRESS_FILE, readProgress } from './update-todo.js';

/**
 * The seed's six tools and `job` (background jobs): seven, in the order the model
 * sees them. The order is part of the cached prompt prefix: append, never
 * reorder mid-run.
 */
export const defaultTools: readonly AnyTool[] = [readFileTool, grepTool, editFileTool, runTool, updateTodoTool, finishTool, jobTool];

/**
 * The tool with that name, or `undefined` (the caller turns that into an
 * observation such as `Tool error: unknown tool "foo"`).
 *
 * @example findTool(defaultTools, 'read_file')?.execute(args, ctx)
 */
export function findTool(tools: readonly AnyTool[], name: string): AnyTool | undefined {
  return tools.find((tool) => tool.name === name);
}
