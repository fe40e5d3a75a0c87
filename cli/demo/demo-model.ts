import { call, reply, type ScriptContext, type ScriptedReply } from 'rein/actors';
import type { ChatMessage } from 'rein/context';

/** The demo's task and verification command. */
export const DEMO_TASK = 'The tests in stats.test.js fail. Fix the bugs in stats.js so that all tests pass, without changing the tests.';
export const DEMO_TEST_CMD = 'node --test';

const BROKEN_SORT = 'const sorted = [...values].sort();';

/**
 * The built-in scripted model of `rein demo`. It behaves like a hurried
 * agent so that every phase and guard shows up: it plans, fixes one bug,
 * tries to finish without testing (the gate refuses), runs the tests, writes
 * an edit with a syntax error (rejected, file unchanged), fixes the second
 * bug, re-tests and finishes. Each step checks what the harness sent back.
 */
export function demoScript(_messages: readonly ChatMessage[], context: ScriptContext): ScriptedReply {
  const last = context.lastResults.join('\n');
  switch (context.call) {
    case 0:
      return { content: 'Let me look at the code under test first.', calls: [call('read_file', { path: 'stats.js' })] };
    case 1:
      return {
        content: 'Two suspicious spots: mean divides by n-1, median sorts as text. Writing a plan.',
        calls: [
          call('update_todo', {
            items: [
              { task: 'mean: divide by the number of values', done: false },
              { task: 'median: sort numerically', done: false },
            ],
          }),
        ],
      };
    case 2:
      return reply(call('edit_file', { path: 'stats.js', old: 'return total / (values.length - 1);', new: 'return total / values.length;' }));
    case 3:
      return { content: 'The mean is fixed; that should be it.', calls: [call('finish', { summary: 'Fixed mean() to divide by the number of values.' })] };
    // Only a refused finish gets here (an accepted one ends the run), whatever words the rules refuse it with.
    case 4:
      return { content: 'The gate wants a test run first.', calls: [call('run', { command: 'node --test' })] };
    case 5:
      return expect(last, 'exit=1', {
        content: 'median still fails: it sorts as text. Fixing the sort.',
        calls: [call('edit_file', { path: 'stats.js', old: BROKEN_SORT, new: 'const sorted = [...values].sort((a, b) => a - b;' })],
      });
    case 6:
      return expect(last, 'Edit rejected', {
        content: 'My edit had a syntax error and was rejected; the file is unchanged. Retrying with balanced parentheses.',
        calls: [call('edit_file', { path: 'stats.js', old: BROKEN_SORT, new: 'const sorted = [...values].sort((a, b) => a - b);' })],
      });
    case 7:
      return expect(last, 'Edit applied', reply(call('run', { command: 'node --test' })));
    case 8:
      return expect(last, 'exit=0', {
        content: 'All tests pass.',
        calls: [
          call('update_todo', { items: DONE_ITEMS }),
          call('finish', { summary: 'Fixed mean() (divided by n-1) and median() (sorted as text); node --test passes.' }),
        ],
      });
    default:
      return askedForTodo(last) ?? { content: 'The demo script has no more steps.', calls: [call('finish', { summary: 'Demo script ended early.' })] };
  }
}

const DONE_ITEMS = [
  { task: 'mean: divide by the number of values', done: true },
  { task: 'median: sort numerically', done: true },
];

/**
 * A gate whose rules want named todo items (`todoComplete`, as in the review
 * recipe) refuses with `no todo item "reviewed"`: the demo adds them ticked
 * off and finishes again, as a model that reads the refusal would.
 */
function askedForTodo(text: string): ScriptedReply | null {
  const names = [...text.matchAll(/no todo item "([^"]+)"/g)].map((match) => match[1]!);
  if (names.length === 0) return null;
  return {
    content: `Reviewed the change against the task; ticking off ${names.map((name) => `"${name}"`).join(', ')}.`,
    calls: [
      call('update_todo', { items: [...DONE_ITEMS, ...names.map((task) => ({ task, done: true }))] }),
      call('finish', { summary: 'Fixed mean() (divided by n-1) and median() (sorted as text); node --test passes; reviewed.' }),
    ],
  };
}

function expect(text: string, needle: string, next: ScriptedReply): ScriptedReply {
  if (text.includes(needle)) return next;
  return {
    content: `The demo expected "${needle}" in the last result but got something else; stopping.`,
    calls: [call('finish', { summary: `Demo stopped: expected "${needle}".` })],
  };
}
