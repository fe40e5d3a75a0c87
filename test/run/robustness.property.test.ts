import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkPairing } from '../../context/pairing.js';
import { defaultTools } from '../../tools/index.js';
import type { AnyTool } from '../../tools/types.js';
import { runScripted, type ScriptedReply } from '../../testing/index.js';

// Stand-ins with the real tools' names and argument schemas (so validation is the real path) but
// in-memory effects, so ten thousand replies take seconds; the tools themselves have their own tests.
const fastTools: AnyTool[] = defaultTools.map((tool) => ({
  ...tool,
  async execute(args: unknown) {
    const text = JSON.stringify(args);
    if (tool.name === 'run') {
      const command = String((args as { command: string }).command);
      const exitCode = command.length % 3;
      return { content: `exit=${exitCode}\n${command.slice(0, 40)}`, ok: true, effect: { kind: 'command', command, exitCode, timedOut: false, blocked: false } };
    }
    if (tool.name === 'edit_file') {
      const applied = text.length % 2 === 0;
      return { content: applied ? 'Edit applied.' : 'Edit rejected.', ok: true, effect: { kind: 'edit', path: String((args as { path: string }).path), applied } };
    }
    if (tool.name === 'update_todo') return { content: 'Todo:', ok: true, effect: { kind: 'todo', items: (args as { items: never[] }).items } };
    if (tool.name === 'finish') return tool.execute(args as never, undefined as never);
    return { content: `${tool.name} ${text.slice(0, 60)}`, ok: true, effect: { kind: 'read', path: 'x' } };
  },
}));

// The real run tool would spawn processes; for the on-disk part a deterministic run keeps it fast too.
const fakeRun = fastTools.find((tool) => tool.name === 'run')!;
const realTools = [...defaultTools.filter((tool) => tool.name !== 'run'), fakeRun];

const validArgs: Record<string, fc.Arbitrary<unknown>> = {
  read_file: fc.record({ path: fc.constantFrom('a.py', 'b.js', 'missing.txt', '../etc/passwd', '/etc/passwd'), start: fc.integer({ min: -5, max: 50 }) }),
  grep: fc.record({ pattern: fc.constantFrom('def', '(', 'x+', '.*'), path: fc.constantFrom('.', 'a.py', 'nope') }),
  // Mostly JS (checked in process); Python edits spawn python3 for the syntax check and are slower.
  edit_file: fc.record({ path: fc.constantFrom('b.js', 'b.js', 'b.js', 'a.py'), old: fc.constantFrom('const x = 1', 'x', 'def f'), new: fc.constantFrom('const x = 2', 'const x = (', '') }),
  run: fc.record({ command: fc.constantFrom('npm test', 'ls', 'make', 'rm -rf /') }),
  update_todo: fc.record({ items: fc.array(fc.record({ task: fc.string({ maxLength: 20 }), done: fc.boolean() }), { maxLength: 3 }) }),
  finish: fc.record({ summary: fc.string({ maxLength: 30 }) }),
};

const argsFor = (name: string): fc.Arbitrary<unknown> => fc.oneof(
  { weight: 30, arbitrary: validArgs[name] ?? fc.constant({}) },
  { weight: 6, arbitrary: fc.constantFrom('{"path": "a.py"', 'null', '[]', '', '{"path": 3}', 'not json at all') },
  { weight: 6, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.constant({ path: 'b.js', old: 'x'.repeat(1_000_000), new: 'y' }) },
);

const toolCall = fc.constantFrom('read_file', 'grep', 'edit_file', 'run', 'update_todo', 'finish', 'delete_everything', '')
  .chain((name) => fc.record({ name: fc.constant(name), args: argsFor(name), id: fc.constantFrom(undefined, '', 'dup', 'call_1', 'x y') }));

const reply: fc.Arbitrary<ScriptedReply> = fc.record({
  content: fc.option(fc.string({ maxLength: 40 }), { nil: null }),
  calls: fc.array(toolCall, { maxLength: 4 }),
}).map(({ content, calls }) => ({ content, calls: calls.map(({ id, ...call }) => (id === undefined ? call : { ...call, id })) }));

async function checkRun(script: ScriptedReply[], tools: AnyTool[]) {
  const run = await runScripted({
    files: { 'a.py': 'def f():\n    return 1\n', 'b.js': 'export const x = 1;\n' }, testCmd: 'npm test', tools, script,
    rules: { budgets: { maxSteps: script.length }, stall: { maxNudges: 1_000 } },
  });
  expect(['done', 'step_limit', 'stalled', 'budget']).toContain(run.output.status);
  expect(checkPairing(run.record)).toEqual([]);
  const ids = run.record.flatMap((message) => (message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.id) : []));
  expect(new Set(ids).size).toBe(ids.length);
  for (const message of run.record) if (message.role === 'tool') expect(message.content.length).toBeLessThan(8_000);
}

describe('property: the whole machine survives any model output', () => {
  it('over 10,000 generated replies: no crash, every tool call gets exactly one result, results stay bounded', async () => {
    let replies = 0;
    await fc.assert(fc.asyncProperty(fc.array(reply, { minLength: 60, maxLength: 120 }), async (script) => {
      replies += script.length;
      await checkRun(script, fastTools);
    }), { numRuns: 115, seed: 20261129 });
    expect(replies).toBeGreaterThanOrEqual(10_000);
  }, 300_000);

  it('the same with the real file tools on a temp workspace', async () => {
    await fc.assert(fc.asyncProperty(fc.array(reply, { minLength: 20, maxLength: 40 }), (script) => checkRun(script, realTools)), { numRuns: 15, seed: 7 });
  }, 300_000);
});
