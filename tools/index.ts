import { UsageError } from '../lib/errors.js';
import { type BuiltInToolName, TOOL_NAMES } from '../rules/tool-names.js';
import { editFileTool } from './edit-file.js';
import { finishTool } from './finish.js';
import { grepTool } from './grep.js';
import { jobTool } from './job.js';
import { readFileTool } from './read-file.js';
import { runTool } from './run.js';
import type { AnyTool } from './types.js';
import { updateTodoTool } from './update-todo.js';

export { checkCommand, compileDenyPatterns, DENY_RULES } from './permissions/deny-list.js';
export type { JobState, JobView } from './sandbox/jobs/job-store.js';
export { describeSandbox, resolveSandbox, type SandboxMode } from './sandbox/launch/bubblewrap.js';
export type { VisibilitySummary } from './sandbox/plan/describe-visibility.js';
export { DEFAULT_ENV_ALLOW } from './sandbox/plan/environment.js';
export { createRunSandbox, type RunSandbox, type RunSandboxOptions } from './sandbox/run-sandbox.js';
export { headTail } from './shaping/shape.js';
export { type ParsedArguments, parseToolArguments } from './tool-arguments.js';
export { type FunctionToolSchema, toolSchemas, toolSchemasJson } from './tool-schemas.js';
export type * from './types.js';
export { formatTodo, PROGRESS_FILE, readProgress } from './update-todo.js';

/** rein's tools by name: tsc wants one for every name in `TOOL_NAMES` (the list the rules and docs read), and no other. */
const BUILT_IN_TOOLS: { readonly [Name in BuiltInToolName]: AnyTool } = {
  read_file: readFileTool,
  grep: grepTool,
  edit_file: editFileTool,
  run: runTool,
  update_todo: updateTodoTool,
  finish: finishTool,
  job: jobTool,
};

/**
 * The seed's six tools and `job` (background jobs): seven, in the order the model
 * sees them (`TOOL_NAMES`). The order is part of the cached prompt prefix: append, never
 * reorder mid-run.
 */
export const defaultTools: readonly AnyTool[] = TOOL_NAMES.map((name) => BUILT_IN_TOOLS[name]);

/**
 * rein's tools and yours, the one registry a run picks its tools from: yours
 * are added after rein's; one with the name of one of rein's replaces it only
 * with `replace: true` (otherwise it is a usage error, not a silent shadow).
 * `only: true` leaves rein's out altogether.
 *
 * @example toolRegistry([searchDocsTool]) // read_file … job, search_docs
 */
export function toolRegistry(extra: readonly AnyTool[] = [], options: { replace?: boolean; only?: boolean; source?: string } = {}): AnyTool[] {
  if (options.only) return [...extra];
  const source = options.source ?? 'tools';
  const byName = new Map(defaultTools.map((tool) => [tool.name, tool]));
  const seen = new Set<string>();
  for (const tool of extra) {
    if (seen.has(tool.name)) throw new UsageError(`${source}: two tools are named "${tool.name}"`);
    seen.add(tool.name);
    if (isBuiltInTool(tool.name) && !options.replace)
      throw new UsageError(`${source}: a tool named "${tool.name}" is one of rein's; give yours another name, or pass replace: true to use yours instead`);
    byName.set(tool.name, tool);
  }
  return [...byName.values()];
}

const isBuiltInTool = (name: string) => (TOOL_NAMES as readonly string[]).includes(name);

/** The tools of a registry that are not rein's own (a rules file's, a library caller's): a run offers them without being told. */
export function addedToolNames(registry: readonly AnyTool[]): string[] {
  return registry.filter((tool) => !isBuiltInTool(tool.name)).map((tool) => tool.name);
}

/**
 * The tool with that name, or `undefined` (the caller turns that into an
 * observation such as `Tool error: unknown tool "foo"`).
 *
 * @example findTool(defaultTools, 'read_file')?.execute(args, ctx)
 */
export function findTool(tools: readonly AnyTool[], name: string): AnyTool | undefined {
  return tools.find((tool) => tool.name === name);
}

// For rein's own packages (the CLI, the visualizer, eval, telemetry, benchmarks).
export { writeFileAtomic } from './edits/atomic-write.js';
export type { PythonCheck } from './edits/python-check.js';
export { createSyntaxChecker } from './edits/syntax-check.js';
export { type CommandRun, runCommand } from './run-command.js';
export { selectTools } from './select-tools.js';
export type { AnyTool, CommandPolicy, ToolOutcome } from './types.js';
