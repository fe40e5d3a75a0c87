import type { ScriptContext, ScriptedReply } from 'rein/actors';
import type { ChatMessage } from 'rein/context';
import { type Feedback, type HarnessTexts, readFeedback } from './feedback.js';
import { type Intent, type Surface, toReply } from './intents.js';
import type { Traits } from './registry.js';
import { firstLine } from './reviewer.js';
import { itemDone, type Simulation, todoItemOf } from './simulation-schema.js';
import { readVisibleTodo } from './todo-readback.js';

interface SimulatedAgentSpec {
  traits: Traits;
  simulation: Simulation;
  testCmd: string;
  /** Names of the tools the harness offers (from the tool schemas it sends). */
  tools: readonly string[];
  texts: HarnessTexts;
}

/** What the simulated model remembers between calls (its "working memory"). */
interface AgentState {
  queue: Intent[];
  last: Intent | null;
  known: Set<number>;
  applied: Set<number>;
  brokenWritten: Set<number>;
  surface: Surface;
  todoWritten: boolean;
  testedSinceEdit: boolean;
  lastTestPassed: boolean | null;
  claimedSinceEdit: boolean;
  retrying: boolean;
  stubbornDone: boolean;
  endCommandsQueued: boolean;
}

/**
 * A simulated model for the offline eval suite: a competent agent with the
 * failure modes in `traits`. Each call it reads what the harness sent back
 * (`lastResults`: edit accepted or rejected, exit codes, gate refusals,
 * stall nudges, policy blocks, unknown tools), updates its memory and picks
 * the next action. It tests the harness; it is not a model benchmark.
 *
 * @example const script = createSimulatedAgent({ traits, simulation, testCmd: 'node --test', tools, texts });
 */
export function createSimulatedAgent(spec: SimulatedAgentSpec): (messages: readonly ChatMessage[], context: ScriptContext) => ScriptedReply {
  const state = initialState(spec);
  return (messages, context) => {
    if (state.last) observe(state, spec, readFeedback(context.lastResults, spec.texts));
    if (spec.traits.planner) recallFromList(state, spec, messages);
    const intent = nextIntent(state, spec, messages);
    state.last = intent;
    return toReply(intent, spec.simulation, spec.testCmd, state.surface);
  };
}

function initialState(spec: SimulatedAgentSpec): AgentState {
  const { simulation, traits } = spec;
  const known = new Set(simulation.fixes.flatMap((fix, index) => (!fix.reveal && !fix.needs_plan ? [index] : [])));
  const queue: Intent[] = [
    ...(traits.reckless ? destructive(simulation, 'start') : []),
    ...simulation.inspect.map((path): Intent => ({ kind: 'read', path })),
    ...(traits.planner && spec.tools.includes('update_todo') ? [{ kind: 'todo', applied: [] } as const] : []),
    ...(traits.flood ? simulation.flood.map((command): Intent => ({ kind: 'command', command, purpose: 'flood' })) : []),
    ...[...known].map((fix) => editIntent(spec, fix)),
  ];
  return {
    queue,
    last: null,
    known,
    applied: new Set(),
    brokenWritten: new Set(),
    surface: { tools: spec.tools, shellEdits: !spec.tools.includes('edit_file') },
    todoWritten: false,
    testedSinceEdit: false,
    lastTestPassed: null,
    claimedSinceEdit: false,
    retrying: false,
    stubbornDone: false,
    endCommandsQueued: false,
  };
}

function destructive(simulation: Simulation, when: 'start' | 'end'): Intent[] {
  return simulation.destructive
    .filter((attempt) => attempt.when === when)
    .map(
      (attempt): Intent => ({ kind: 'command', command: attempt.command, purpose: 'destructive', ...(attempt.instead ? { instead: attempt.instead } : {}) }),
    );
}

function editIntent(spec: SimulatedAgentSpec, fix: number): Intent {
  const broken = spec.traits.sloppy && spec.simulation.fixes[fix]!.broken !== undefined;
  return { kind: 'edit', fix, variant: broken ? 'broken' : 'correct' };
}

function observe(state: AgentState, spec: SimulatedAgentSpec, feedback: Feedback): void {
  const last = state.last!;
  if (feedback.notAllowedInPhase) {
    retryAfterPlanning(state, last);
    return;
  }
  if (last.kind === 'edit') afterEdit(state, last, feedback);
  else if (last.kind === 'test') afterTest(state, spec, feedback);
  else if (last.kind === 'todo') afterTodo(state, feedback);
  else if (last.kind === 'finish' && feedback.gateRefused) afterRefusal(state, feedback);
  else if (last.kind === 'delegate') discoverFromReview(state, spec, feedback);
  else if (last.kind === 'command' && feedback.blocked && last.instead) state.queue.unshift({ kind: 'command', command: last.instead, purpose: 'instead' });
  if (!state.retrying) discover(state, spec, feedback);
}

/** The gate refused the finish: run the tests; and when it wants an agent's review (the reviewer recipe), ask for one. */
function afterRefusal(state: AgentState, feedback: Feedback): void {
  // The `agentApproved` guard's reasons (machines/guards/catalogue.ts): no review yet, or one older than the last edit.
  const review = state.surface.tools.includes('delegate')
    ? /no (\S+) has reviewed the change yet \(delegate it to \1\)|the change was edited after (\S+)'s review; ask \2 again/.exec(feedback.text)
    : null;
  // A rejection's reasons were read when the review came back; the edit they asked for is queued already.
  const agent = review ? (review[1] ?? review[2]) : undefined;
  const wantsReview = agent !== undefined;
  state.queue.unshift({ kind: 'test', retry: false }, ...(wantsReview ? [{ kind: 'delegate', agent } as const] : []));
}

/** A reviewer's rejection quotes the line still to change: the fixes it points at are now known. */
function discoverFromReview(state: AgentState, spec: SimulatedAgentSpec, feedback: Feedback): void {
  if (!feedback.text.includes('REJECT')) return;
  spec.simulation.fixes.forEach((fix, index) => {
    if (state.known.has(index) || !feedback.text.includes(firstLine(fix.old))) return;
    state.known.add(index);
    state.queue.push(editIntent(spec, index));
  });
}

/** A phase refused the tool (a plan phase that wants a todo list first): write one, then try again. */
function retryAfterPlanning(state: AgentState, last: Intent): void {
  state.queue.unshift(...(state.todoWritten || !state.surface.tools.includes('update_todo') ? [] : [{ kind: 'todo', applied: [] } as const]), last);
}

function afterEdit(state: AgentState, last: Extract<Intent, { kind: 'edit' }>, feedback: Feedback): void {
  if (feedback.unknownTool === 'edit_file') {
    state.surface = { ...state.surface, shellEdits: true };
    state.queue.unshift(last);
    return;
  }
  if (feedback.editRejectedForSyntax) {
    state.queue.unshift({ kind: 'edit', fix: last.fix, variant: 'correct' });
    return;
  }
  const landed = state.surface.shellEdits ? feedback.exitCode === 0 : feedback.editApplied;
  if (!landed) return;
  if (last.variant === 'broken') state.brokenWritten.add(last.fix);
  else {
    state.applied.add(last.fix);
    state.brokenWritten.delete(last.fix);
  }
  state.testedSinceEdit = false;
  state.claimedSinceEdit = false;
}

function afterTest(state: AgentState, spec: SimulatedAgentSpec, feedback: Feedback): void {
  state.testedSinceEdit = true;
  state.lastTestPassed = feedback.exitCode === 0;
  if (state.lastTestPassed) {
    state.retrying = false;
    return;
  }
  if (spec.traits.stubborn && !state.stubbornDone) {
    // Told to stop: read this output like a careful model would. Not yet told: run it again.
    if (state.retrying && feedback.nudged) {
      state.retrying = false;
      state.stubbornDone = true;
    } else {
      state.retrying = true;
      state.queue.unshift({ kind: 'test', retry: true });
      return;
    }
  }
  if (feedback.text.includes('SyntaxError')) {
    for (const fix of state.brokenWritten) {
      state.queue.unshift({ kind: 'read', path: spec.simulation.fixes[fix]!.path }, { kind: 'edit', fix, variant: 'repair' });
    }
  }
}

function afterTodo(state: AgentState, feedback: Feedback): void {
  if (feedback.unknownTool !== null || feedback.text.startsWith('Tool error')) return;
  state.todoWritten = true;
}

/**
 * The plan-dependent model keeps its requirements nowhere but the todo list, and it reads the
 * list back from what the harness shows it each turn (the update_todo result, a summary, a
 * later run's task): an open item it knows a fix for becomes its next edit. A list the harness
 * no longer shows is a list it has forgotten.
 */
function recallFromList(state: AgentState, spec: SimulatedAgentSpec, messages: readonly ChatMessage[]): void {
  const open = openItems(messages);
  spec.simulation.fixes.forEach((fix, index) => {
    const item = todoItemOf(spec.simulation, index);
    if (!fix.needs_plan || state.known.has(index) || item === undefined || !open.includes(item)) return;
    state.known.add(index);
    state.queue.push(editIntent(spec, index));
  });
}

/** True when the visible list shows an item open although every fix under it is applied: time to tick it off. */
function listLagsBehind(state: AgentState, spec: SimulatedAgentSpec, messages: readonly ChatMessage[]): boolean {
  return openItems(messages).some((item) => itemDone(state.applied, spec.simulation, item));
}

function openItems(messages: readonly ChatMessage[]): string[] {
  return (readVisibleTodo(messages) ?? []).filter((item) => !item.done).map((item) => item.task);
}

/** Fixes whose `reveal` text just appeared in a result: the model now knows what to change. */
function discover(state: AgentState, spec: SimulatedAgentSpec, feedback: Feedback): void {
  spec.simulation.fixes.forEach((fix, index) => {
    if (state.known.has(index) || !fix.reveal || !feedback.text.includes(fix.reveal)) return;
    state.known.add(index);
    state.queue.push(editIntent(spec, index));
  });
}

function nextIntent(state: AgentState, spec: SimulatedAgentSpec, messages: readonly ChatMessage[]): Intent {
  const queued = state.queue.shift();
  if (queued) return queued;
  const edited = state.applied.size + state.brokenWritten.size > 0;
  if (spec.traits.hurried && edited && !state.testedSinceEdit && !state.claimedSinceEdit) {
    state.claimedSinceEdit = true;
    return { kind: 'finish', giveUp: false };
  }
  if (!state.testedSinceEdit) return { kind: 'test', retry: false };
  if (!state.lastTestPassed) return { kind: 'finish', giveUp: true };
  if (spec.traits.reckless && !state.endCommandsQueued) {
    state.endCommandsQueued = true;
    state.queue.push(...destructive(spec.simulation, 'end'));
    const next = state.queue.shift();
    if (next) return next;
  }
  if (spec.traits.planner && state.surface.tools.includes('update_todo')) {
    if (listLagsBehind(state, spec, messages)) return { kind: 'todo', applied: [...state.applied] };
  }
  return { kind: 'finish', giveUp: false };
}
