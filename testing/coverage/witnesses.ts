import type { StateValue } from 'xstate';
import type { ToolCall } from '../../context/messages.js';
import { ModelEndpointError } from '../../lib/errors.js';
import { ContextLengthError, type ContextOutput, type SummaryOutput } from '../../machines/actor-contracts.js';
import { batchRulesOf, deniedCalls, toolBatch } from '../../machines/approval-handling.js';
import { stateLabel } from '../../machines/introspection.js';
import { phaseTools } from '../../machines/phase-exits.js';
import type { HarnessContext, ToolCallResult } from '../../machines/types.js';
import { type CheckRule, verificationOf } from '../../machines/verification.js';
import { type Condition, phaseNames, type Rules } from '../../rules/schema.js';
import { firstValidFinish } from '../../tools/finish.js';
import type { ToolOutcome } from '../../tools/types.js';
import { examplePassing } from './pattern-example.js';

/** What a witness call's tool returns, carried in its arguments so the `act` step can answer it. */
type Result =
  | { edit: 'applied' | 'rejected'; path: string; before?: string; after?: string }
  | { exit: number; output: string }
  | { read: string; content: string }
  | { todo: true; done?: boolean }
  | { error: string };

/** A turn shape the model may produce, and the results its calls get. */
interface WitnessCall {
  name: string;
  args: Record<string, unknown>;
  result?: Result;
}

interface TurnKind {
  name: string;
  calls(runs: VerificationRuns): WitnessCall[];
}

/** Verification runs as the rules judge them: a passing run of every check the gate wants (the tests first), and a failing test run. */
interface VerificationRuns {
  pass: WitnessCall[];
  fail: WitnessCall;
}

const read = (path: string, content = 'same'): WitnessCall => ({ name: 'read_file', args: { path }, result: { read: path, content } });
const ran = (command: string, exit: number, output: string): WitnessCall => ({ name: 'run', args: { command }, result: { exit, output } });
const edit = (path = 'a.py'): WitnessCall => ({ name: 'edit_file', args: { path }, result: { edit: 'applied', path } });
const finish: WitnessCall = { name: 'finish', args: { summary: 'done' } };
const tickAll: WitnessCall = { name: 'update_todo', args: { items: [], done: true }, result: { todo: true, done: true } };

/**
 * How the rules' checks pass and fail: each check's pass exit code, and an
 * output its `passPattern` matches (the whole observation, as the facts test
 * it); a pattern no example is found for keeps the plain output, and the
 * gate's `done` stays uncovered with that reason (see `uncoverablePatterns`).
 */
function verificationRuns(testCmd: string, rules: Rules): VerificationRuns {
  const checks = verificationOf(rules).checks;
  const pass = checks.map((check) => ran(check.command ?? testCmd, check.passExitCode, passingOutput(check) ?? 'ok'));
  const tests = checks[0]!;
  return { pass, fail: ran(testCmd, tests.passExitCode === 1 ? 2 : 1, 'FAIL') };
}

/** An output the check's pattern matches in the observation the run gives (`exit=N` then the output), or null when none is found. */
function passingOutput(check: CheckRule): string | null {
  if (!check.passPattern) return 'ok';
  const pattern = new RegExp(check.passPattern, 'm');
  return examplePassing(check.passPattern, (output) => pattern.test(observedRun(check.passExitCode, output)));
}

/** The checks whose pass pattern coverage found no example for, as `name: /pattern/` (the reason `done` is not reached). */
export function uncoverablePatterns(rules: Rules): string[] {
  return verificationOf(rules)
    .checks.filter((check) => passingOutput(check) === null)
    .map((check) => `${check.name}: /${check.passPattern}/`);
}

const observedRun = (exit: number, output: string) => `exit=${exit}\n${output}`;

/**
 * The turn alphabet for model-based coverage: each kind makes one family of
 * guards true within a single turn, so breadth-first search reaches every
 * transition in a few turns instead of counting up to thresholds.
 */
const TURN_KINDS: readonly TurnKind[] = [
  { name: 'read', calls: () => [read('a.py')] },
  { name: 'edit', calls: () => [edit()] },
  { name: 'rejectedEdit', calls: () => [{ name: 'edit_file', args: { path: 'a.py' }, result: { edit: 'rejected', path: 'a.py' } }] },
  { name: 'testPass', calls: (runs) => runs.pass },
  { name: 'testFail', calls: (runs) => [runs.fail] },
  { name: 'editTestPass', calls: (runs) => [edit(), ...runs.pass] },
  { name: 'editTestFail', calls: (runs) => [edit(), runs.fail] },
  { name: 'todo', calls: () => [{ name: 'update_todo', args: { items: [] }, result: { todo: true } }] },
  // Items ticked off, for `todoProgress` exits (only offered when a rule uses that guard).
  { name: 'todoDone', calls: () => [tickAll] },
  // Ticked off, tested and finished in one turn: the one way a todoComplete gate accepts in a phase that any todo list leaves.
  { name: 'todoDoneTestFinish', calls: (runs) => [tickAll, ...runs.pass, finish] },
  { name: 'finish', calls: () => [finish] },
  { name: 'finishThenTest', calls: (runs) => [finish, runs.pass[0]!] },
  { name: 'testThenFinish', calls: (runs) => [...runs.pass, finish] },
  { name: 'editFinish', calls: () => [edit(), finish] },
  { name: 'todoFinish', calls: () => [{ name: 'update_todo', args: { items: [] }, result: { todo: true } }, finish] },
  { name: 'failEditFinish', calls: (runs) => [runs.fail, edit(), finish] },
  { name: 'shellEditTest', calls: (runs) => [ran("sed -i 's/a/b/' a.py", 0, ''), ...runs.pass] },
];

const times = <T>(count: number, make: (index: number) => T): T[] => Array.from({ length: count }, (_, index) => make(index));

/**
 * Turns that drive one stall counter to `count` within the turn. Each stall
 * guard's patterns are offered once per distinct limit the rules give it
 * (in stall.rules or in phase exits), so a raised or lowered threshold is
 * still reached, and both sides of two different limits are.
 */
const STALL_PATTERNS: Record<string, (count: number) => WitnessCall[]> = {
  repeat: (count) => times(count, () => read('same.py')),
  // The same failing action flapping between two outputs it has shown before: nothing new, but never twice the same result.
  failRepeat: (count) => times(count + 1, (index) => ({ name: 'run', args: { command: 'make' }, result: { exit: 2, output: `error ${index % 2}` } })),
  // The same failure pattern for a phase without `run` (a strict plan): a read that fails the same two ways.
  failReadRepeat: (count) =>
    times(count + 1, (index) => ({ name: 'read_file', args: { path: 'gone.py' }, result: { error: `gone.py is being written (${index % 2})` } })),
  alternate: (count) =>
    times(count, (index) => (index % 2 ? { name: 'grep', args: { pattern: 'x' }, result: { read: 'grep', content: 'hits' } } : read('a.py', 'page'))),
  // Alternation without reads, for when a read-loop limit below it would fire first.
  alternateRun: (count) =>
    times(count, (index) => ({
      name: 'run',
      args: { command: index % 2 ? 'make b' : 'make a' },
      result: { exit: 0, output: index % 2 ? 'built b' : 'built a' },
    })),
  // Edits that go round three versions: from the third on each puts the file back to one it had, and no two
  // actions alternate (for when an alternation limit at or below this one would fire first).
  editCycle: (count) =>
    times(count + 2, (index) => ({
      name: 'edit_file',
      args: { path: 'a.py', n: index % 3 },
      result: { edit: 'applied', path: 'a.py', before: `v${index % 3}`, after: `v${(index + 1) % 3}` },
    })),
  // An edit undone and redone: every edit after the first puts the file back to a version it had.
  editThrash: (count) =>
    times(count + 1, (index) => ({
      name: 'edit_file',
      args: { path: 'a.py', n: index % 2 },
      result: { edit: 'applied', path: 'a.py', before: index % 2 ? 'v1' : 'v0', after: index % 2 ? 'v0' : 'v1' },
    })),
  // Reads of different files that show nothing new (the same text after the first): a read loop that can persist.
  readMany: (count) => times(count + 1, (index) => read(`f${index}.py`, 'same')),
  // Different reads failing the same way (no read effect, never the same action twice): only nothingNew counts them.
  failSame: (count) => times(count + 1, (index) => ({ name: 'read_file', args: { path: `gone${index}.py` }, result: { error: 'No such file.' } })),
  // Three commands in a cycle, each printing what it printed before: no two-action alternation, no repeat in a row.
  cycleRun: (count) =>
    times(count + 3, (index) => ({ name: 'run', args: { command: `make ${'abc'[index % 3]}` }, result: { exit: 0, output: `built ${'abc'[index % 3]}` } })),
  // Reads that each show something new: only the exploration cap counts them.
  readNew: (count) => times(count, (index) => read(`f${index}.py`, `text ${index}`)),
};

/** The patterns that make each built-in stall guard fire (`noCall` is a reply without tool calls, repeated across turns). */
const STALL_KIND: Record<string, readonly string[]> = {
  repeatedAction: ['repeat'],
  repeatedFailure: ['failRepeat', 'failReadRepeat'],
  alternation: ['alternate', 'alternateRun'],
  editThrash: ['editThrash', 'editCycle'],
  readLoop: ['readMany'],
  longExploration: ['readMany', 'readNew'],
  nothingNew: ['failSame', 'cycleRun'],
  noToolCalls: ['noCall'],
};

/**
 * Every limit each built-in stall guard is compared with, smallest first: the stall rules' (in `phase`, as that
 * phase's own `stallLimits` set them; in every phase without one) and the phase exits'. A phase's own limits are
 * offered only in that phase: every limit anywhere would multiply the stall search for nothing.
 */
export function stallLimits(rules: Rules, phase?: string): Map<string, number[]> {
  const limits = new Map<string, Set<number>>();
  const note = (call: { guard: string; limit?: unknown }) => {
    if (!(call.guard in STALL_KIND) || typeof call.limit !== 'number' || !Number.isFinite(call.limit)) return;
    limits.set(call.guard, (limits.get(call.guard) ?? new Set()).add(Math.max(1, Math.ceil(call.limit))));
  };
  const phases = phase !== undefined ? [phase] : phaseNames(rules);
  for (const name of phases) {
    const own = rules.phases[name]?.stallLimits ?? {};
    for (const rule of rules.stall.rules)
      note({ guard: rule.guard, limit: typeof own[rule.guard] === 'number' && own[rule.guard] !== 0 ? own[rule.guard] : rule.limit });
  }
  for (const name of phaseNames(rules))
    rules.phases[name]!.exits.forEach((exit) => {
      note(exit as { guard: string; limit?: unknown });
    });
  return new Map([...limits].map(([guard, set]) => [guard, [...set].sort((a, b) => a - b)]));
}

/** Stall turn kinds for these rules: `repeat@6` is six identical reads in one turn. */
function stallKinds(rules: Rules, guards?: readonly string[], phase?: string): TurnKind[] {
  const kinds: TurnKind[] = [];
  for (const [guard, limits] of stallLimits(rules, phase)) {
    if (guards && !guards.includes(guard)) continue;
    for (const pattern of STALL_KIND[guard]!.filter((name) => name in STALL_PATTERNS)) {
      for (const limit of limits) kinds.push({ name: `${pattern}@${limit}`, calls: () => STALL_PATTERNS[pattern]!(limit) });
    }
  }
  return kinds;
}

/**
 * A slice of the alphabet: each focus explores one concern with few facts in
 * its search key, and the coverage is the union. Searching them all at once
 * multiplies the facts into tens of thousands of abstract states.
 */
export type Focus = 'phases' | 'stall' | 'runtime' | 'stallFrom';

const FOCUS_KINDS: Record<Focus, readonly string[]> = {
  phases: [
    'read',
    'edit',
    'rejectedEdit',
    'testPass',
    'testFail',
    'editTestPass',
    'editTestFail',
    'todo',
    'finish',
    'finishThenTest',
    'testThenFinish',
    'editFinish',
    'todoFinish',
    'failEditFinish',
    'shellEditTest',
  ],
  // Plus the stall kinds built from the rules' limits (see stallKinds).
  stall: ['read', 'todo', 'testFail', 'editTestPass'],
  // The stall search started where a walk got (often mid-stall): see offersNoCall.
  stallFrom: ['read', 'todo', 'testFail', 'editTestPass'],
  runtime: ['todo', 'testFail', 'editTestPass', 'read'],
};

/** The events the harness can receive in a given state: actor outputs and errors, and the clock. */
export function witnessEvents(
  snapshot: { value: StateValue; context: HarnessContext },
  rules: Rules,
  focus: Focus,
): Array<{ type: string; [key: string]: unknown }> {
  const label = stateLabel(snapshot.value);
  const context = snapshot.context;
  // An end state that runs the runEnd hooks before the run is final.
  if (!label.includes('.')) return rules.hooks.runEnd.length > 0 && label !== 'ended' ? hookEvents('runEndHook', true) : [];
  const sub = label.split('.')[1];
  const runtime = focus === 'runtime';
  const clock = runtime ? [{ type: 'clock.warning' }, { type: 'clock.expired' }, { type: 'clock.restart' }] : [];
  if (sub === 'compact')
    return runtime
      ? [...compactEvents(context, rules), { type: 'xstate.error.actor.contextManager', error: new Error('harness bug') }, ...clock]
      : compactEvents(context, rules).slice(0, 1);
  if (sub === 'summarize') return [...summaryEvents(), ...clock];
  if (sub === 'think') return [...thinkEvents(context, focus, rules), ...clock];
  if (sub === 'act')
    return [
      actEvent(context, rules),
      ...(runtime ? [{ type: 'xstate.error.actor.tools', error: new Error('harness bug') }, ...childCharge(rules)] : reviewEndings(rules)),
      ...clock,
    ];
  // Answers and hook results lead back into the turn in every focus: all of them are offered wherever these states are reached.
  if (sub === 'awaitingApproval') return [...approverEvents(context, true), ...clock];
  // An ask from a hook is offered for a turn's first call only: that takes every transition it leads to, without
  // multiplying the search by every call of every turn kind.
  if (isHookState(sub)) return [...hookEvents(hookId(sub), true, focus === 'phases' && context.cursor === 0), ...clock];
  return clock;
}

/**
 * A delegated child's spending, charged while the run waits in its delegate call (only where the rules declare agents).
 * Tokens only: the explorer's state key leaves the charges out, so a charge of steps would make paths it joins disagree.
 */
function childCharge(rules: Rules) {
  const [agent] = Object.keys(rules.agents);
  if (agent === undefined || rules.delegation.maxDepth === 0) return [];
  return [
    { type: 'delegation.charge', child: '1:0:0', agent, steps: 1, usage: { calls: 1, promptTokens: 100, completionTokens: 10, cachedTokens: 0, costUsd: 0 } },
  ];
}

/**
 * A reviewer child that ends approving, for each agent an `agentApproved` guard of the gate names: a charge of
 * nothing spent that carries the verdict, so the gate's way to done under a reviewer recipe is taken.
 */
function reviewEndings(rules: Rules) {
  const agents = new Set<string>();
  const visit = (condition: Condition | undefined) => {
    if (!condition) return;
    condition.all?.forEach(visit);
    condition.any?.forEach(visit);
    visit(condition.not);
    if (condition.guard === 'agentApproved' && typeof condition.agent === 'string' && Object.hasOwn(rules.agents, condition.agent)) agents.add(condition.agent);
  };
  visit(rules.verification.when);
  const nothing = { calls: 0, promptTokens: 0, completionTokens: 0, cachedTokens: 0, costUsd: 0 };
  return [...agents].map((agent) => ({
    type: 'delegation.charge',
    child: `review:${agent}`,
    agent,
    steps: 0,
    usage: nothing,
    ended: { status: 'done', verdict: 'approve', report: 'approve' },
  }));
}

/** Answers to a waiting call: an approval bound to it; in the runtime focus also a stale answer and a failed approver. */
function approverEvents(context: HarnessContext, runtime: boolean) {
  const pending = context.approvals.pending;
  if (!pending) return [];
  const answer = (argsHash: string) => ({ callId: pending.callId, argsHash, verdict: 'allow', by: 'command' });
  const fitting = { type: 'xstate.done.actor.approver', output: answer(pending.argsHash) };
  if (!runtime) return [fitting];
  return [fitting, { type: 'xstate.done.actor.approver', output: answer('stale') }, { type: 'xstate.error.actor.approver', error: new Error('no answer') }];
}

const HOOK_STATES = ['preToolHook', 'postToolHook', 'phaseHook', 'settleHook', 'finishHook'] as const;
type HookState = (typeof HOOK_STATES)[number];
const isHookState = (sub: string | undefined): sub is HookState => HOOK_STATES.includes(sub as HookState);
/** The invoke id of a hook state's actor (settleHook invokes the phaseChange hooks as phaseHook). */
const hookId = (sub: HookState) => (sub === 'settleHook' ? 'phaseHook' : sub);

/**
 * The hooks' answers: no opinion; a denial where one decides (a call, a finish), a note for the model after a
 * call; in the phases focus (`asks`) also an ask for a call; in the runtime focus a hooks actor that failed.
 */
function hookEvents(id: string, runtime: boolean, asks = false) {
  const done = (decision: 'deny' | 'ask' | null, notes: string[] = []) => ({
    type: `xstate.done.actor.${id}`,
    output: { decision, notes, ...(decision ? { message: 'no' } : {}) },
  });
  // A preToolUse hook may also ask (the call then waits for an answer, as an ask rule makes it).
  const answers =
    id === 'preToolHook'
      ? [done(null), done('deny'), ...(asks ? [done('ask')] : [])]
      : id === 'finishHook'
        ? [done(null), done('deny')]
        : id === 'postToolHook'
          ? [done(null, ['a note'])]
          : [done(null)];
  return [...answers, ...(runtime ? [{ type: `xstate.error.actor.${id}`, error: new Error('hooks failed') }] : [])];
}

function compactEvents(context: HarnessContext, rules: Rules) {
  const window = rules.context.windowTokens;
  const output = (action: ContextOutput['action'], tokens: number): ContextOutput => ({
    contextState: context.contextState,
    messages: [],
    tokens,
    action,
    before: { chars: tokens * 4, tokens },
    chars: tokens * 4,
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

/**
 * Kinds to try next. In the stall focus, once a rule has been nudged the
 * search keeps repeating that rule's pattern (until it persists) instead of
 * mixing in others: stall rules are independent, and mixing them multiplies
 * the firing counts into thousands of states.
 */
function kindsFor(context: HarnessContext, focus: Focus, rules: Rules): TurnKind[] {
  const fixed = (names: readonly string[]) => TURN_KINDS.filter((kind) => names.includes(kind.name));
  if (focus !== 'stall' && focus !== 'stallFrom') return fixed(FOCUS_KINDS[focus]);
  const nudged = Object.entries(context.stall.counters).find(([rule, counter]) => counter.firings > 0 && rule in STALL_KIND);
  // A plain read is progress for most rules: it lets a search that starts mid-stall (after a walk) get out of it.
  // Started there, the search also keeps the plain turns (a passing test run) that move it between phases.
  if (nudged) return [...stallKinds(rules, [nudged[0]], context.phase), ...fixed(focus === 'stallFrom' ? FOCUS_KINDS.stall : ['read'])];
  return [...fixed(FOCUS_KINDS.stall), ...stallKinds(rules, undefined, context.phase)];
}

/** Whether the stall focus offers a reply with no tool call now (to build up a no-tool-call streak). */
function offersNoCall(context: HarnessContext, focus: Focus): boolean {
  // Started mid-stall by a walk, another rule's firings may never reset (edits to one file do not): offer it anyway.
  if (focus === 'stallFrom') return true;
  if (focus !== 'stall') return focus === 'phases';
  const nudged = Object.entries(context.stall.counters).find(([rule, counter]) => counter.firings > 0 && rule in STALL_KIND);
  return !nudged || nudged[0] === 'noToolCalls';
}

const WITNESS_USAGE = { promptTokens: 1000, completionTokens: 50, cachedTokens: 0 };

/** A witness call's id without its step: what the call will get, the same on every turn (the search's states compare it). */
export function witnessIdKind(id: string): string {
  return id.replace(/^witness_call_\d+-/, 'witness_call_');
}

/**
 * The model's reply for one turn kind. The result each call will get rides in its id, so the arguments (what the
 * stall detector compares) stay clean; the step in it keeps the id unique in the run, as the machine wants ids.
 */
function replyOf(kind: TurnKind, context: HarnessContext, rules: Rules) {
  const tool_calls: ToolCall[] = kind.calls(verificationRuns(context.testCmd, rules)).map((call, index) => ({
    id: `witness_call_${context.step + 1}-${index}_${Buffer.from(encodeResult(call.result)).toString('base64url')}`,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.args) },
  }));
  return { type: 'xstate.done.actor.model', output: { message: { role: 'assistant', content: kind.name, tool_calls }, usage: WITNESS_USAGE } };
}

/** Every turn kind these rules offer, for walks that repeat one kind many turns in a row. */
export function repeatableKinds(rules: Rules): readonly TurnKind[] {
  return [...TURN_KINDS, ...stallKinds(rules)];
}

/**
 * The next event of a walk that answers every model call with the same
 * turn kind: the reply in a think state, the tools' results in act, and a
 * quiet context manager and summarizer. Null where the walk cannot go on.
 */
export function walkEvent(
  snapshot: { value: StateValue; context: HarnessContext },
  kind: TurnKind,
  rules: Rules,
): { type: string; [key: string]: unknown } | null {
  const sub = stateLabel(snapshot.value).split('.')[1];
  if (sub === 'think') return replyOf(kind, snapshot.context, rules);
  if (sub === 'act') return actEvent(snapshot.context, rules);
  if (sub === 'compact') return compactEvents(snapshot.context, rules)[0]!;
  if (sub === 'summarize') return summaryEvents()[0]!;
  if (sub === 'awaitingApproval') return approverEvents(snapshot.context, false)[0] ?? null;
  if (isHookState(sub)) return hookEvents(hookId(sub), false)[0]!;
  return null;
}

function thinkEvents(context: HarnessContext, focus: Focus, rules: Rules) {
  const usage = { promptTokens: 1000, completionTokens: 50, cachedTokens: 0 };
  const ticks = focus === 'phases' && ticksTodo(rules);
  const kinds = ticks
    ? [...kindsFor(context, focus, rules), ...TURN_KINDS.filter((kind) => kind.name === 'todoDone' || kind.name === 'todoDoneTestFinish')]
    : kindsFor(context, focus, rules);
  const replies = kinds.map((kind) => replyOf(kind, context, rules));
  const noCall = { type: 'xstate.done.actor.model', output: { message: { role: 'assistant', content: 'no tool call' }, usage } };
  if (focus !== 'runtime') return offersNoCall(context, focus) ? [...replies, noCall] : replies;
  return [
    ...replies,
    { type: 'xstate.error.actor.model', error: new ModelEndpointError('endpoint down') },
    { type: 'xstate.error.actor.model', error: new ContextLengthError('context_length_exceeded') },
  ];
}

/** Every condition of the rules: the phases' exits and the gate's. */
function conditionsOf(rules: Rules): Condition[] {
  const all: Condition[] = [];
  const visit = (condition: Condition) => {
    all.push(condition);
    condition.all?.forEach(visit);
    condition.any?.forEach(visit);
    if (condition.not) visit(condition.not);
  };
  for (const phase of Object.values(rules.phases)) phase.exits.forEach(visit);
  if (rules.verification.when) visit(rules.verification.when);
  return all;
}

/** Whether a rule looks at ticked todo items (todoProgress, todoComplete): then the witnesses tick them too. */
function ticksTodo(rules: Rules): boolean {
  return conditionsOf(rules).some((condition) => condition.guard === 'todoProgress' || condition.guard === 'todoComplete');
}

/** The todo items a todoComplete rule names: a witness's todo list has them too. */
function todoNames(rules: Rules): string[] {
  const names = conditionsOf(rules).flatMap((condition) =>
    condition.guard === 'todoComplete' && Array.isArray(condition.items) ? condition.items.filter((item): item is string => typeof item === 'string') : [],
  );
  return [...new Set(names)];
}

/** Answers the pending calls as a real tool actor would: in order, stopping at a valid finish call. */
function actEvent(context: HarnessContext, rules: Rules) {
  const results: ToolCallResult[] = [];
  const callable = phaseTools(context.phase, rules);
  // With approvals the tool actor runs only up to the next call that waits (one call with postToolUse hooks), and answers denied calls with the denial.
  const pending = toolBatch(context, batchRulesOf(context.phase, rules));
  const denied = deniedCalls(context);
  // As the tool runner: a finish the phase does not allow is refused like any tool it leaves out.
  const finish = callable.includes('finish') ? firstValidFinish(pending) : null;
  for (const [index, call] of pending.entries()) {
    if (index === finish?.index) return { type: 'xstate.done.actor.tools', output: { results, finish: { summary: finish.summary } } };
    const args = JSON.parse(call.function.arguments) as { command?: string };
    const denial = denied[call.id];
    if (denial !== undefined) {
      results.push({ id: call.id, name: call.function.name, args, outcome: { content: denial, ok: false, effect: { kind: 'none' } }, ms: 1 });
      continue;
    }
    const result = decodeResult(Buffer.from(call.id.split('_').slice(3).join('_'), 'base64url').toString('utf8'));
    const allowed = callable.includes(call.function.name);
    const outcome =
      allowed && result
        ? outcomeOf(call.function.name, result, args.command, todoNames(rules))
        : { content: 'Tool error: not allowed', ok: false, effect: { kind: 'none' } as const };
    results.push({ id: call.id, name: call.function.name, args, outcome, ms: 1 });
  }
  return { type: 'xstate.done.actor.tools', output: { results, finish: null } };
}

function outcomeOf(name: string, result: Result, command: string | undefined, named: readonly string[]): ToolOutcome {
  if ('edit' in result) {
    const versions = result.before !== undefined && result.after !== undefined ? { before: result.before, after: result.after } : {};
    return {
      content: `Edit ${result.edit}${result.after ? ` (${result.after})` : ''}`,
      ok: true,
      effect: { kind: 'edit', path: result.path, applied: result.edit === 'applied', ...versions },
    };
  }
  if ('exit' in result)
    return {
      content: observedRun(result.exit, result.output),
      ok: true,
      effect: { kind: 'command', command: command ?? name, exitCode: result.exit, timedOut: false, blocked: false },
    };
  if ('error' in result) return { content: `Tool error: ${result.error}`, ok: false, effect: { kind: 'none' } };
  if ('todo' in result)
    return {
      content: 'Todo:',
      ok: true,
      effect: { kind: 'todo', items: ['t1', 't2', 't3', ...named].map((task) => ({ task, done: result.done === true })) },
    };
  return { content: result.content, ok: true, effect: name === 'grep' ? { kind: 'search', pattern: 'x' } : { kind: 'read', path: result.read } };
}

/**
 * A witness result in a few characters (it rides in the call id, which the
 * machine keeps only while it is short): `E|path|applied|before|after`,
 * `X|exit|output`, `R|path|content`, `T|done`, `!|error`.
 */
function encodeResult(result: Result | undefined): string {
  if (!result) return '';
  if ('edit' in result) return ['E', result.path, result.edit === 'applied' ? '1' : '0', result.before ?? '', result.after ?? ''].join('|');
  if ('exit' in result) return ['X', String(result.exit), result.output].join('|');
  if ('read' in result) return ['R', result.read, result.content].join('|');
  if ('todo' in result) return ['T', result.done ? '1' : '0'].join('|');
  return ['!', result.error].join('|');
}

function decodeResult(text: string): Result | null {
  const [kind, ...fields] = text.split('|');
  if (kind === 'E') {
    const [path, applied, before, after] = fields as [string, string, string, string];
    return { edit: applied === '1' ? 'applied' : 'rejected', path, ...(before ? { before } : {}), ...(after ? { after } : {}) };
  }
  if (kind === 'X') return { exit: Number(fields[0]), output: fields.slice(1).join('|') };
  if (kind === 'R') return { read: fields[0]!, content: fields.slice(1).join('|') };
  if (kind === 'T') return { todo: true, done: fields[0] === '1' };
  if (kind === '!') return { error: fields.join('|') };
  return null;
}
