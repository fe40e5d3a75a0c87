import { initialContextState } from '../context/context-state.js';
import { enabledPhases, type Rules } from '../rules/schema.js';
import { initialApprovals } from './approval-handling.js';
import { NO_USAGE, priceOf } from './budgets.js';
import { initialFacts, initialTurn } from './facts.js';
import { initialStall } from './stall/counters.js';
import type { HarnessContext, HarnessInput } from './types.js';

/** The phase a run starts in: the first enabled phase of the rules' phase table. */
export function firstPhase(rules: Rules): string {
  const [first] = enabledPhases(rules);
  // Stryker disable next-line ConditionalExpression: rules-check refuses rules without an enabled phase before a machine is built
  if (first === undefined) throw new Error('the rules enable no phase');
  return first;
}

/** The machine context at the start of a run. */
export function initialContext(input: HarnessInput, rules: Rules): HarnessContext {
  const model = input.model ?? 'unknown';
  const timeLimitMs = rules.budgets.maxSeconds * 1000;
  return {
    task: input.task,
    testCmd: input.testCmd,
    ...(input.repositoryInstructions ? { repositoryInstructions: input.repositoryInstructions } : {}),
    model,
    price: priceOf(rules.model.prices, model),
    phase: firstPhase(rules),
    previousPhase: firstPhase(rules),
    step: 0,
    recordLength: 0,
    view: null,
    viewTokens: 0,
    overheadTokens: input.overheadTokens ?? 0,
    contextState: initialContextState(rules.context.charsPerToken),
    forceCompaction: false,
    promptRejections: 0,
    calls: [],
    callIds: [],
    cursor: 0,
    heldResults: null,
    facts: initialFacts(input.todo ?? []),
    turn: initialTurn(),
    stall: initialStall(),
    notices: [],
    approvals: initialApprovals(input.rememberedApprovals),
    usage: NO_USAGE,
    warned: {},
    timeLimitMs,
    timeWarningMs: timeLimitMs * rules.budgets.warnAt,
    elapsedMs: input.elapsedMs ?? 0,
    status: null,
    summary: '',
    reason: '',
  };
}
