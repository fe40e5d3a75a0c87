import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkPairing } from '../../context/pairing.js';
import { runScripted, type ScriptedCall, type ScriptedReply } from '../../testing/index.js';
import { defaultTools } from '../../tools/index.js';
import { findDenyRule } from '../../tools/permissions/deny-list.js';
import type { AnyTool } from '../../tools/types.js';

const TEST_CMD = 'npm test';
/** Exit codes of the stand-in `run`: the test command passes (so the gate can accept a finish), a variant of it fails. */
const EXIT_CODES: Record<string, number> = { [TEST_CMD]: 0, 'npm test -- --bail': 1, ls: 0, make: 2 };

// Stand-ins with the real tools' names and argument schemas (so validation is the real path) but
// in-memory effects, so ten thousand replies take seconds; the tools themselves have their own tests.
const fastTools: AnyTool[] = defaultTools.map((tool) => ({
  ...tool,
  async execute(args: unknown) {
    const text = JSON.stringify(args);
    if (tool.name === 'run') {
      const command = String((args as { command: string }).command);
      const denied = findDenyRule(command);
      if (denied)
        return {
          content: `Blocked by policy: ${denied.reason}.`,
          ok: false,
          effect: { kind: 'command', command, exitCode: null, timedOut: false, blocked: true },
        };
      const exitCode = EXIT_CODES[command] ?? 127;
      return {
        content: `exit=${exitCode}\n${command.slice(0, 40)}`,
        ok: true,
        effect: { kind: 'command', command, exitCode, timedOut: false, blocked: false },
      };
    }
    if (tool.name === 'edit_file') {
      const applied = text.length % 2 === 0;
      return {
        content: applied ? 'Edit applied.' : 'Edit rejected.',
        ok: true,
        effect: { kind: 'edit', path: String((args as { path: string }).path), applied },
      };
    }
    if (tool.name === 'update_todo') return { content: 'Todo:', ok: true, effect: { kind: 'todo', items: (args as { items: never[] }).items } };
    if (tool.name === 'finish') return tool.execute(args as never, undefined as never);
    return { content: `${tool.name} ${text.slice(0, 60)}`, ok: true, effect: { kind: 'read', path: 'x' } };
  },
}));

// The real run tool would spawn processes; for the on-disk part a deterministic run keeps it fast too.
const fakeRun = fastTools.find((tool) => tool.name === 'run')!;
const realTools = [...defaultTools.filter((tool) => tool.name !== 'run'), fakeRun];

const WINDOW_TOKENS = 32_768;
/**
 * An argument longer than the whole window (at the scripted model's 4 characters a token). The model's own
 * messages are never shortened, so once the machine has taken such a reply no view can fit: the run must end
 * as `budget`, and no other run may. Most runs never send one; a few do, at a generated size.
 */
const OVERSIZED_CHARS = WINDOW_TOKENS * 4 + 4_096;
const OVERSIZED_RUN_ODDS = 10;

const validArgs: Record<string, fc.Arbitrary<unknown>> = {
  read_file: fc.record({ path: fc.constantFrom('a.py', 'b.js', 'missing.txt', '../etc/passwd', '/etc/passwd'), start: fc.integer({ min: -5, max: 50 }) }),
  grep: fc.record({ pattern: fc.constantFrom('def', '(', 'x+', '.*'), path: fc.constantFrom('.', 'a.py', 'nope') }),
  // Mostly JS (checked in process); Python edits spawn python3 for the syntax check and are slower.
  edit_file: fc.record({
    path: fc.constantFrom('b.js', 'b.js', 'b.js', 'a.py'),
    old: fc.constantFrom('const x = 1', 'x', 'def f'),
    new: fc.constantFrom('const x = 2', 'const x = (', ''),
  }),
  // A passing test run is rare, so most runs go the distance and a few end at the gate.
  run: fc.record({
    command: fc.oneof(
      { weight: 1, arbitrary: fc.constant(TEST_CMD) },
      { weight: 40, arbitrary: fc.constantFrom('npm test -- --bail', 'ls', 'make', 'rm -rf /') },
    ),
  }),
  update_todo: fc.record({ items: fc.array(fc.record({ task: fc.string({ maxLength: 20 }), done: fc.boolean() }), { maxLength: 3 }) }),
  finish: fc.record({ summary: fc.string({ maxLength: 30 }) }),
};

/** Arguments of a generated size: a few thousand characters in any run, more than the window in an oversized one. */
const sizedEdit = (min: number, max: number) => fc.integer({ min, max }).map((size) => ({ path: 'b.js', old: 'x'.repeat(size), new: 'y' }));

const argsFor = (name: string, oversized: boolean): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 30, arbitrary: validArgs[name] ?? fc.constant({}) },
    { weight: 6, arbitrary: fc.constantFrom('{"path": "a.py"', 'null', '[]', '', '{"path": 3}', 'not json at all') },
    { weight: 6, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }) },
    { weight: 1, arbitrary: oversized ? sizedEdit(OVERSIZED_CHARS, 1_000_000) : sizedEdit(100, 4_000) },
  );

const toolCall = (oversized: boolean): fc.Arbitrary<ScriptedCall> =>
  fc
    .constantFrom('read_file', 'grep', 'edit_file', 'run', 'update_todo', 'finish', 'delete_everything', '')
    .chain((name) => fc.record({ name: fc.constant(name), args: argsFor(name, oversized), id: fc.constantFrom(undefined, '', 'dup', 'call_1', 'x y') }))
    .map(({ id, ...call }) => (id === undefined ? call : { ...call, id }));

const reply = (oversized: boolean): fc.Arbitrary<ScriptedReply> =>
  fc.record({
    content: fc.option(fc.string({ maxLength: 40 }), { nil: null }),
    calls: fc.array(toolCall(oversized), { maxLength: 4 }),
  });

/** A script; one run in OVERSIZED_RUN_ODDS may carry oversized arguments. */
const script = (length: { minLength: number; maxLength: number }) =>
  fc.integer({ min: 1, max: OVERSIZED_RUN_ODDS }).chain((dice) => fc.array(reply(dice === 1), length));

const isOversized = (scripted: ScriptedReply) =>
  !(scripted instanceof Error) && (scripted.calls ?? []).some((call) => typeof call.args === 'object' && JSON.stringify(call.args).length > OVERSIZED_CHARS);

interface RunFigures {
  consumed: number;
  status: string;
  oversized: boolean;
}

async function checkRun(replies: ScriptedReply[], tools: AnyTool[]): Promise<RunFigures> {
  const run = await runScripted({
    files: { 'a.py': 'def f():\n    return 1\n', 'b.js': 'export const x = 1;\n' },
    testCmd: TEST_CMD,
    tools,
    replaceTools: 'only',
    script: replies,
    rules: { budgets: { maxSteps: replies.length }, stall: { maxNudges: 1_000 }, context: { windowTokens: WINDOW_TOKENS } },
  });
  const { status, reason } = run.output;
  // What the machine consumed: one reply per model call it made.
  const consumed = run.model.requests.length;
  const last = replies[consumed - 1]!;
  const oversizedAt = replies.findIndex(isOversized);
  if (oversizedAt >= 0 && oversizedAt < consumed) {
    // The reply that cannot fit was the last one taken; the run ended at once, on the budget unless that same turn ended it.
    expect(consumed).toBe(oversizedAt + 1);
    if (status !== 'budget') expect(status === 'done' || (status === 'step_limit' && consumed === replies.length)).toBe(true);
  } else {
    expect(status).not.toBe('budget');
  }
  expect(['done', 'step_limit', 'budget']).toContain(status);
  if (status === 'budget') expect(reason).toMatch(/^The context window \(32768 tokens\) is full/);
  if (status === 'step_limit') expect(consumed).toBe(replies.length);
  if (status === 'done') expect(!(last instanceof Error) && (last.calls ?? []).some((call) => call.name === 'finish')).toBe(true);
  expect(checkPairing(run.record)).toEqual([]);
  const ids = run.record.flatMap((message) => (message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.id) : []));
  expect(new Set(ids).size).toBe(ids.length);
  for (const message of run.record) if (message.role === 'tool') expect(message.content.length).toBeLessThan(8_000);
  return { consumed, status, oversized: oversizedAt >= 0 };
}

describe('property: the whole machine survives any model output', () => {
  it('over 10,000 replies consumed by the machine: no crash, every tool call gets exactly one result, results stay bounded, a run ends on the window only when the model overfilled it', async () => {
    const runs: RunFigures[] = [];
    await fc.assert(
      fc.asyncProperty(script({ minLength: 60, maxLength: 140 }), async (replies) => {
        runs.push(await checkRun(replies, fastTools));
      }),
      { numRuns: 160, seed: 20261129 },
    );
    const consumed = runs.reduce((sum, run) => sum + run.consumed, 0);
    const ended = (status: string) => runs.filter((run) => run.status === status).length;
    const oversized = runs.filter((run) => run.oversized).length;
    console.log(
      `property: ${consumed} replies consumed in ${runs.length} runs; ${oversized} runs drew an argument larger than the window; ` +
        `ends: ${['done', 'step_limit', 'budget'].map((status) => `${status} ${ended(status)}`).join(', ')}`,
    );
    expect(consumed).toBeGreaterThanOrEqual(10_000);
    // Full windows in some runs, not most; and the gate's accepting path is reached too.
    expect(ended('budget')).toBeGreaterThan(0);
    expect(ended('budget')).toBeLessThan(runs.length / 5);
    expect(ended('done')).toBeGreaterThan(0);
  }, 600_000);

  it('the same with the real file tools on a temp workspace', async () => {
    await fc.assert(
      fc.asyncProperty(script({ minLength: 20, maxLength: 40 }), async (replies) => {
        await checkRun(replies, realTools);
      }),
      { numRuns: 15, seed: 7 },
    );
  }, 300_000);
});
