import fs from 'node:fs';
import { z } from 'zod';
import { stableStringify } from '../lib/stable-json.js';
import { ensureWorkspaceReinDir } from '../lib/state/workspace-rein-dir.js';
import { jsonSyntaxError } from '../lib/syntax-error.js';
import { formatZodError } from '../lib/zod-error.js';
import { isWrittenProgress, recordWrittenProgress } from '../rules/trust/index.js';
import { writeFileAtomic } from './edits/atomic-write.js';
import { resolveInWorkspace } from './permissions/path-guard.js';
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
    ensureWorkspaceReinDir(ctx.root);
    const text = `${stableStringify({ todo: items })}\n`;
    writeFileAtomic(file, text);
    // The next run shows it as this session's list only if it is still exactly what rein wrote.
    recordWrittenProgress(ctx.root, text);
    return { content: formatTodo(items), ok: true, effect: { kind: 'todo', items } };
  },
};

/** The seed's rendering: `Todo:` then `[x] done task` / `[ ] open task` lines. */
export function formatTodo(items: readonly TodoItem[]): string {
  return ['Todo:', ...items.map((item) => `[${item.done ? 'x' : ' '}] ${item.task}`)].join('\n');
}

/**
 * The todo list a previous run left in the workspace, or `null`: only the list rein itself last wrote there (its
 * hash is kept in the user's state dir, rules/trust/written-progress.ts). A `.rein/progress.json` rein did not write (a
 * repository shipped it, or something changed it since) is not shown to the model as its earlier session's list,
 * and a broken one stops nothing: both are `null`, with the reason in `ignored` for the trace.
 *
 * @example const todo = readProgress('/work/repo'); if (todo) prompt += formatTodo(todo);
 */
export function readProgress(root: string, ignored?: (reason: string) => void): TodoItem[] | null {
  const file = resolveInWorkspace(root, PROGRESS_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    ignored?.(`${PROGRESS_FILE} could not be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    return null;
  }
  if (!isWrittenProgress(root, text)) {
    ignored?.(`${PROGRESS_FILE} is not the todo list rein last wrote here (the repository brought it, or it changed since): not shown to the model`);
    return null;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    ignored?.(`${PROGRESS_FILE}: not valid JSON: ${jsonSyntaxError(text, error)}`);
    return null;
  }
  const result = progressFile.safeParse(parsed);
  if (!result.success) {
    ignored?.(`${PROGRESS_FILE} is not a rein progress file (${formatZodError(result.error, { input: parsed }).join('; ')})`);
    return null;
  }
  return result.data.todo;
}
