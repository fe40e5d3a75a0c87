import type { ChatMessage } from '../context/messages.js';
import { initialContextState } from '../context/context-state.js';
import type { Rules } from '../rules/schema.js';
import type { TodoItem } from '../tools/types.js';
import { initialFacts, initialStall, initialTurn } from './facts.js';
import { NO_USAGE } from './budget.js';
import type { HarnessContext, HarnessInput } from './types.js';

/** The phase a run starts in: plan, unless the rules leave it out. */
export function firstPhase(rules: Rules): 'plan' | 'build' {
  return rules.phases.plan.enabled ? 'plan' : 'build';
}

/** The machine context at the start of a run. */
export function initialContext(input: HarnessInput, rules: Rules): HarnessContext {
  return {
    task: input.task,
    testCmd: input.testCmd,
    model: input.model ?? 'unknown',
    phase: firstPhase(rules),
    step: 0,
    recordLength: 0,
    view: null,
    viewTokens: 0,
    overheadTokens: input.overheadTokens ?? 0,
    contextState: initialContextState(rules.context.charsPerToken),
    forceCompaction: false,
    promptRejections: 0,
    calls: [],
    cursor: 0,
    facts: initialFacts(input.todo ?? []),
    turn: initialTurn(),
    stall: initialStall(),
    notices: [],
    usage: NO_USAGE,
    warned: { time: false, steps: false },
    elapsedMs: input.elapsedMs ?? 0,
    status: null,
    summary: '',
    reason: '',
  };
}

/** The first two messages of every record: the static system prompt and the task. */
export function openingMessages(context: HarnessContext, rules: Rules): ChatMessage[] {
  return [
    { role: 'system', content: rules.systemPrompt },
    { role: 'user', content: taskMessage(context.task, context.testCmd, context.facts.todo) },
  ];
}

function taskMessage(task: string, testCmd: string, todo: TodoItem[]): string {
  const parts = [task.trim()];
  if (testCmd) parts.push(`Verification command: \`${testCmd}\``);
  if (todo.length > 0) {
    const lines = todo.map((item) => `[${item.done ? 'x' : ' '}] ${item.task}`).join('\n');
    parts.push(`Todo list left by an earlier session on this workspace (.rein/progress.json):\n${lines}`);
  }
  return parts.join('\n\n');
}
