import fs from 'node:fs';
import { z } from 'zod';
import { UsageError } from '../lib/errors.js';
import { stableStringify } from '../lib/stable-json.js';
import { ensureStateDir } from '../lib/state-dir.js';
import { jsonSyntaxError } from '../lib/syntax-error.js';
import { formatZodError } from '../lib/zod-error.js';
import { writeFileAtomic } from './atomic-write.js';
import { resolveInWorkspace } from './path-guard.js';
import type { TodoItem, Tool } from './types.js';

/** Where the todo list lives in the workspace, so a later run can pick it up (seed component 7). */
export const PROGRESS_FILE = '.rein/progress.json';

const todoItem = z
  .object({
    task: z.string().describe('What to do, in a few words.'),
    done: z.boolean().describe('True once the task is finished and verified.'),
  })
  .strict();

const parameters = z
  .object({
    items: z.array(todoItem).describe('The whole todo list; it replaces the previous one.'),
  })
  .strict();

const progressFile = z.object({ todo: z.array(todoItem) });

/**
 * `update_todo`: replaces the todo list, persists it atomically as
 * `{"todo": [...]}` (stable JSON) in `.rein/progress.json`, and echoes it.
 *
 * @example await updateTodoTool.execute({ items: [{ task: 'reproduce', done: true }, { task: 'fix', done: false }] }, ctx)
 */
export const updateTodoTool: Tool<typeof parameters> = {
  name: 'update_todo',
  description: 'Replace the todo list: [{task, done}].',
  parameters,
  async execute({ items }, ctx) {
    const file = resolveInWorkspace(ctx.root, PROGRESS_FILE);
    ensureStateDir(ctx.root);
    writeFileAtomic(file, `${stableStringify({ todo: items })}\n`);
    return { content: formatTodo(items), ok: true, effect: { kind: 'todo', items } };
  },
};

/** The seed's rendering: `Todo:` then `[x] done task` / `[ ] open task` lines. */
export function formatTodo(items: readonly TodoItem[]): string {
  return ['Todo:', ...items.map((item) => `[${item.done ? 'x' : ' '}] ${item.task}`)].join('\n');
}

/**
 * The todo list a previous run left in the workspace, or `null` if there is
 * none. A file that is not valid progress JSON is a `UsageError` naming it,
 * rather than being silently replaced.
 *
 * @example const todo = readProgress('/work/repo'); if (todo) prompt += formatTodo(todo);
 */
export function readProgress(root: string): TodoItem[] | null {
  const file = resolveInWorkspace(root, PROGRESS_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file}: not valid JSON: ${jsonSyntaxError(text, error)}\nfix or delete it`);
  }
  const result = progressFile.safeParse(parsed);
  if (!result.success)
    throw new UsageError(`${file} is not a rein progress file (${formatZodError(result.error, { input: parsed }).join('; ')}); fix or delete it`);
  return result.data.todo;
}
