import type { StubRequest } from '../../testing/index.js';

/**
 * A stub model's policy for the one-bug repo whose `add.js` subtracts: read it,
 * fix it, run `node --test`, finish. Anything else it is shown is answered as unexpected.
 */
export function fixesAdd(request: StubRequest) {
  const last = request.messages.at(-1)!;
  const text = typeof last.content === 'string' ? last.content : '';
  const id = `call_${request.messages.length}`;
  if (!request.messages.some((message) => message.role === 'tool')) return { toolCalls: [{ id, name: 'read_file', arguments: { path: 'add.js' } }] };
  if (text.startsWith('[add.js')) return { toolCalls: [{ id, name: 'edit_file', arguments: { path: 'add.js', old: 'a - b', new: 'a + b' } }] };
  if (text.startsWith('Edit applied')) return { toolCalls: [{ id, name: 'run', arguments: { command: 'node --test' } }] };
  if (text.startsWith('exit=0')) return { toolCalls: [{ id, name: 'finish', arguments: { summary: 'add() adds.' } }] };
  return { content: `unexpected: ${text.slice(0, 60)}` };
}
