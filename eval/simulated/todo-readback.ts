import type { ChatMessage } from 'rein/context';

/** One item of a todo list as the harness shows it (`[ ] task` or `[x] task`). */
interface VisibleTodoItem {
  task: string;
  done: boolean;
}

/** Opening lines of the places the harness shows the list: the update_todo result, a summary, the task of a later run. */
const LIST_HEADERS = [/^Todo:$/m, /^Todo list \(kept by the harness\):$/m, /^Todo list left by an earlier session\b.*:$/m];

/**
 * The newest todo list in what the harness sent the model (tool results and
 * user messages, never the model's own calls), or null when none is in view.
 * This is how the plan-dependent simulated model remembers requirements: if
 * the harness no longer shows the list, the model has forgotten it.
 *
 * @example readVisibleTodo([{ role: 'tool', tool_call_id: 'c', content: 'Todo:\n[ ] fix x' }]) // [{ task: 'fix x', done: false }]
 */
export function readVisibleTodo(messages: readonly ChatMessage[]): VisibleTodoItem[] | null {
  for (let position = messages.length - 1; position >= 0; position--) {
    const message = messages[position]!;
    if (message.role !== 'tool' && message.role !== 'user') continue;
    const items = parseList(message.content ?? '');
    if (items) return items;
  }
  return null;
}

function parseList(text: string): VisibleTodoItem[] | null {
  const headers = LIST_HEADERS.flatMap((header) => {
    const match = header.exec(text);
    return match ? [match.index + match[0].length] : [];
  });
  if (headers.length === 0) return null;
  const start = Math.max(...headers);
  const items: VisibleTodoItem[] = [];
  for (const line of text.slice(start).split('\n').slice(1)) {
    const item = /^\[( |x)\] (.+)$/.exec(line);
    if (!item) break;
    items.push({ task: item[2]!, done: item[1] === 'x' });
  }
  return items;
}
