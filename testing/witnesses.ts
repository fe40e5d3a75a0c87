import type { ToolCall } from '../context/messages.js';
import { ContextLengthError, type ContextOutput, type SummaryOutput } from '../machines/actor-contracts.js';
import { stateLabel } from '../machines/state-label.js';
import type { HarnessContext, ToolCallResult } from '../machines/types.js';
import { ModelEndpointError } from '../lib/errors.js';
import { PHASES, type Rules } from '../rules/schema.js';
import { phaseTools } from '../machines/rule-usability.js';
import type { ToolOutcome } from '../tools/types.js';

/** What a witness call's tool returns, carried in its arguments so the `act` step can answer it. */
type Result =
  | { edit: 'applied' | 'rejected'; path: string }
  | { exit: number; output: string }
  | { read: string; content: string }
  | { todo: true; done?: boolean }
  | { error: string };

/** A turn shape the model may produce, and the results its calls get. */
interface WitnessCall { name: string; args: Record<string, unknown>; result?: Result }

interface TurnKind {
  name: string;
  calls(testCmd: string): WitnessCall[];
}

const read = (path: string, content = 'same'): WitnessCall => ({ name: 'read_file', args: { path }, result: { read: path, content } });
const test = (testCmd: string, exit: number): WitnessCall => ({ name: 'run', args: { command: testCmd }, result: { exit, output: exit === 0 ? 'ok' : 'FAIL' } });
const edit = (path = 'a.py'): WitnessCall => ({ name: 'edit_file', args: { path }, result: { edit: 'applied', path } });
const finish: WitnessCall = { name: 'finish', args: { summary: 'done' } };

/**
 * The turn alphabet for model-based coverage: each kind makes one family of
 * guards true within a single turn, so breadth-first search reaches every
 * transition in a few turns instead of counting up to thresholds.
 */
export const TURN_KINDS: readonly TurnKind[] = [
  { name: 'read', calls: () => [read('a.py')] },
  { name: 'edit', calls: () => [edit()] },
  { name: 'rejectedEdit', calls: () => [{ name: 'edit_file', args: { path: 'a.py' }, result: { edit: 'rejected', path: 'a.py' } }] },
  { name: 'testPass', calls: (cmd) => [test(cmd, 0)] },
  { name: 'testFail', calls: (cmd) => [test(cmd, 1)] },
  { name: 'editTestPass', calls: (cmd) => [edit(), test(cmd, 0)] },
  { name: 'editTestFail', calls: (cmd) => [edit(), test(cmd, 1)] },
  { name: 'todo', calls: () => [{ name: 'update_todo', args: { items: [] }, result: { todo: true } }] },
  // Items ticked off, for `todoProgress` exits (only offered when a rule uses that guard).
  { name: 'todoDone', calls: () => [{ name: 'update_todo', args: { items: [], done: true }, result: { todo: true, done: true } }] },
  { name: 'finish', calls: () => [finish] },
  { name: 'finishThenTest', calls: (cmd) => [finish, test(cmd, 0)] },
  { name: 'testThenFinish', calls: (cmd) => [test(cmd, 0), finish] },
  { name: 'repeat', calls: () => [read('same.py'), read('same.py'), read('same.py')] },
  { name: 'failRepeat', calls: () => [0, 1, 2].map((index) => ({ name: 'run', args: { command: 'make' }, result: { exit: 2, output: `error ${index}` } })) },
  // The same failure pattern for a phase without `run` (a strict plan): a read that fails differently each time.
  { name: 'failReadRepeat', calls: () => [0, 1, 2].map((index) => ({ name: 'read_file', args: { path: 'gone.py' }, result: { error: `gone.py is being written (${index})` } })) },
  { name: 'alternate', calls: () => [0, 1, 2, 3, 4, 5].map((index) => (index % 2 ? { name: 'grep', args: { pattern: 'x' }, result: { read: 'grep', content: `hits ${index}` } } : read('a.py', `v${index}`))) },
  { name: 'editThrash', calls: () => [0, 1, 2, 3, 4].map((index) => ({ name: 'edit_file', args: { path: 'a.py', n: index }, result: { edit: 'applied', path: 'a.py' } })) },
  { name: 'readMany', calls: () => Array.from({ length: 8 }, (_, index) => read(`f${index}.py`, `${index}`)) },
  { name: 'editFinish', calls: () => [edit(), finish] },
  { name: 'todoFinish', calls: () => [{ name: 'update_todo', args: { items: [] }, result: { todo: true } }, finish] },
  { name: 'failEditFinish', calls: (cmd) => [test(cmd, 1), edit(), finish] },
  { name: 'shellEditTest', calls: (cmd) => [{ name: 'run', args: { command: "sed -i 's/a/b/' a.py" }, result: { exit: 0, output: '' } }, test(cmd, 0)] },
];

/**
 * A slice of the alphabet: each focus explores one concern with few facts in
 * its search key, and the coverage is the union. Searching them all at once
 * multiplies the facts into tens of thousands of abstract states.
 */
export type Focus = 'phases' | 'stall' | 'runtime';

const FOCUS_KINDS: Record<Focus, readonly string[]> = {
  phases: ['read', 'edit', 'rejectedEdit', 'testPass', 'testFail', 'editTestPass', 'editTestFail', 'todo', 'finish', 'finishThenTest', 'testThenFinish', 'editFinish', 'todoFinish', 'failEditFinish', 'shellEditTest'],
  stall: ['repeat', 'failRepeat', 'failReadRepeat', 'alternate', 'editThrash', 'readMany', 'read', 'todo', 'testFail', 'editTestPass'],
  runtime: ['todo', 'testFail', 'editTestPass', 'read'],
};

/** The events the harness can receive in a given state: actor outputs and errors, and the clock. */
export function witnessEvents(snapshot: { value: unknown; context: HarnessContext }, rules: Rules, focus: Focus): Array<{ type: string; [key: string]: unknown }> {
  const label = stateLabel(snapshot.value as never);
  const context = snapshot.context;
  if (!label.includes('.')) return [];
  const sub = label.split('.')[1];
  const runtime = focus === 'runtime';
  const clock = runtime ? [{ type: 'clock.warning' }, { type: 'clock.expired' }, { type: 'clock.restart' }] : [];
  if (sub === 'compact') return runtime ? [...compactEvents(context, rules), { type: 'xstate.error.actor.contextManager', error: new Error('harness bug') }, ...clock] : compactEvents(context, rules).slice(0, 1);
  if (sub === 'summarize') return [...summaryEvents(), ...clock];
  if (sub === 'think') return [...thinkEvents(context, focus, rules), ...clock];
  if (sub === 'act') return [actEvent(context, rules), ...(runtime ? [{ type: 'xstate.error.actor.tools', error: new Error('harness bug') }] : []), ...clock];
  return clock;
}

function compactEvents(context: HarnessContext, rules: Rules) {
  const window = rules.context.windowTokens;
  const output = (action: ContextOutput['action'], tokens: number): ContextOutput => ({
    contextState: context.contextState, messages: [], tokens, action, before: { chars: tokens * 4, tokens }, chars: tokens * 4,
  });
  const events = [output('none', 1000), output('overflow', window + 1)];
  if (rules.context.enabled && rules.context.summarize) events.push(output('summarize', Math.ceil(window * 0.9)));
  const maxTokens = rules.budgets.maxTokens;
  if (maxTokens !== undefined || rules.budgets.maxCostUsd !== undefined) events.push(output('none', maxTokens ?? 10_000_000));
  return events.map((event) => ({ type: 'xstate.done.actor.contextManager', output: event }));
}

function summaryEvents() {
  const done = (summaryChars: number): SummaryOutput => ({ summary: { text: 'summary', through: 5 }, foldedChars: 5000, summaryChars });
  return [
    { type: 'xstate.done.actor.summarizer', output: done(100) },
    { type: 'xstate.done.actor.summarizer', output: done(9000) },
    { type: 'xstate.error.actor.summarizer', error: new Error('summarizer failed') },
  ];
}

/** The turn kind that makes each built-in stall rule fire. */
const STALL_KIND: Record<string, readonly string[]> = {
  repeatedAction: ['repeat'], repeatedFailure: ['failRepeat', 'failReadRepeat'], alternation: ['alternate'], editThrash: ['editThrash'], readLoop: ['readMany'], noToolCalls: ['noCall'],
};

/**
 * Kinds to try next. In the stall focus, once a rule has been nudged the
 * search keeps repeating that rule's pattern (until it persists) instead of
 * mixing in others: stall rules are independent, and mixing them multiplies
 * the firing counts into thousands of states.
 */
function kindsFor(context: HarnessContext, focus: Focus): readonly string[] {
  if (focus !== 'stall') return FOCUS_KINDS[focus];
  const nudged = Object.entries(context.stall.counters).find(([rule, counter]) => counter.firings > 0 && rule in STALL_KIND);
  return nudged ? STALL_KIND[nudged[0]]! : [...FOCUS_KINDS.stall, 'noCall'];
}

function thinkEvents(context: HarnessContext, focus: Focus, rules: Rules) {
  const usage = { promptTokens: 1000, completionTokens: 50, cachedTokens: 0 };
  const ticks = focus === 'phases' && PHASES.some((phase) => rules.phases[phase].exits.some((exit) => exit.guard === 'todoProgress'));
  const kinds = ticks ? [...kindsFor(context, focus), 'todoDone'] : kindsFor(context, focus);
  const replies = TURN_KINDS.filter((kind) => kinds.includes(kind.name)).map((kind) => {
    // The result each call will get rides in its id, so the arguments (what the stall detector compares) stay clean.
    const tool_calls: ToolCall[] = kind.calls(context.testCmd).map((call, index) => ({
      id: `witness_${index}_${Buffer.from(JSON.stringify(call.result ?? null)).toString('base64url')}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) },
    }));
    return { type: 'xstate.done.actor.model', output: { message: { role: 'assistant', content: kind.name, tool_calls }, usage } };
  });
  const noCall = { type: 'xstate.done.actor.model', output: { message: { role: 'assistant', content: 'no tool call' }, usage } };
  if (focus === 'stall') return kinds.includes('noCall') ? [...replies, noCall] : replies;
  if (focus === 'phases') return [...replies, noCall];
  return [
    ...replies,
    { type: 'xstate.error.actor.model', error: new ModelEndpointError('endpoint down') },
    { type: 'xstate.error.actor.model', error: new ContextLengthError('context_length_exceeded') },
  ];
}

/** Answers the pending calls as a real tool actor would: in order, stopping at a valid finish call. */
function actEvent(context: HarnessContext, rules: Rules) {
  const results: ToolCallResult[] = [];
  const callable = phaseTools(context.phase, rules);
  for (const call of context.calls.slice(context.cursor)) {
    if (call.function.name === 'finish') return { type: 'xstate.done.actor.tools', output: { results, finish: { summary: 'done' } } };
    const args = JSON.parse(call.function.arguments) as { command?: string };
    const result = JSON.parse(Buffer.from(call.id.split('_').slice(2).join('_'), 'base64url').toString('utf8')) as Result | null;
    const allowed = callable.includes(call.function.name);
    const outcome = allowed && result ? outcomeOf(call.function.name, result, args.command) : { content: 'Tool error: not allowed', ok: false, effect: { kind: 'none' } as const };
    results.push({ id: call.id, name: call.function.name, args, outcome, ms: 1 });
  }
  return { type: 'xstate.done.actor.tools', output: { results, finish: null } };
}

function outcomeOf(name: string, result: Result, command?: string): ToolOutcome {
  if ('edit' in result) return { content: `Edit ${result.edit}`, ok: true, effect: { kind: 'edit', path: result.path, applied: result.edit === 'applied' } };
  if ('exit' in result) return { content: `exit=${result.exit}\n${result.output}`, ok: true, effect: { kind: 'command', command: command ?? name, exitCode: result.exit, timedOut: false, blocked: false } };
  if ('error' in result) return { content: `Tool error: ${result.error}`, ok: false, effect: { kind: 'none' } };
  if ('todo' in result) return { content: 'Todo:', ok: true, effect: { kind: 'todo', items: ['t1', 't2', 't3'].map((task) => ({ task, done: result.done === true })) } };
  return { content: result.content, ok: true, effect: name === 'grep' ? { kind: 'search', pattern: 'x' } : { kind: 'read', path: result.read } };
}
