import { enqueueActions } from 'xstate';
import type { EndStatus } from '../lib/trace/trace-events.js';
import { enabledPhases, type Rules } from '../rules/schema.js';
import { warningRulesOf } from './budgets.js';
import { usageByAgent } from './delegation/charge.js';
import { type RefusalParams, refusalUpdate } from './gate.js';
import { builtInLookup, type GuardLookup } from './guards/explain.js';
import { guardView } from './guards/guard-view.js';
import { type GuardRegistry, guardHolds, overriddenName, type RegisteredGuard, registerGuards } from './guards/registry.js';
import { applyUpdate, harnessSetup, ruleActionUpdate } from './harness-setup.js';
import { hookMomentsOf, runEndInput } from './hook-handling.js';
import { firstPhase, initialContext } from './initial-context.js';
import { endTargets, stallCanEnd } from './phase-exits.js';
import { type Naming, phaseState } from './phase-state.js';
import { type ActionParams, type RegisteredAction, type RuleActionRegistry, registerActions } from './rule-actions.js';
import { checkRuleReferences } from './rules-check.js';
import type { HarnessContext, HarnessInput, HarnessOutput } from './types.js';

/** Extension points for harness builders: guards and rule actions registered from TypeScript or a rules module. */
export interface HarnessOptions {
  guards?: GuardRegistry;
  actions?: RuleActionRegistry;
  /** Where the registries come from, for error messages (a rules file's path). */
  source?: string;
}

const ROOT = 'harness';

/**
 * Builds the harness statechart from the rules. Phases plan → build →
 * verify → fix each run the same turn cycle (context manager → model → tools
 * → stall review → phase exits); the verification gate, the stall detector and
 * the budgets are named guards whose numbers are their parameters. Actors are
 * placeholders: provide real ones with `machine.provide({ actors })` (see
 * `run/start-run.ts`) or scripted ones in tests (see `testing/`).
 *
 * @example
 * const machine = createHarnessMachine(defaultRules());
 * const actor = createActor(machine.provide({ actors }), { input: { task, testCmd: 'npm test' } });
 */
export function createHarnessMachine(rules: Rules, options: HarnessOptions = {}) {
  const source = options.source ?? 'rules module';
  const guards = registerGuards(options.guards ?? {}, source);
  const actions = registerActions(options.actions ?? {}, source);
  checkRuleReferences(rules, { guards: guards.map((guard) => guard.name), actions: actions.map((action) => action.name) });
  const naming = namingOf(guards, actions);
  // What a rules file registers is only known at run time: its names are checked when the rules load, so the
  // setup is extended with loosely typed maps (XState's types want the names statically).
  const extended =
    // Stryker disable next-line ConditionalExpression: extending the setup with no guards and no actions builds the same machine (the "true" case is killed: registered names would be missing)
    guards.length + actions.length === 0
      ? harnessSetup
      : (harnessSetup.extend({
          // extend() types new guards and actions by name at compile time; these come from a rules file at run time (checked by the registry).
          guards: guardImplementations(guards) as never,
          actions: { ...actionImplementations(actions), refuseFinish: refusalWith(guards) } as never,
        }) as unknown as typeof harnessSetup);
  return extended.createMachine(rootConfig(rules, naming));
}

export type HarnessMachine = ReturnType<typeof createHarnessMachine>;

function rootConfig(rules: Rules, naming: Naming) {
  const order = enabledPhases(rules);
  const phases = Object.fromEntries(order.map((phase) => [phase, phaseState(phase, rules, naming)]));
  const stallEnds = order.some((phase) => stallCanEnd(phase, rules)) || endTargets(rules).has('stalled');
  // With runEnd hooks each end state runs them before the run is final (in `ended`); without, the end states are final.
  const endHooks = hookMomentsOf(rules).runEnd;
  const end = endHooks ? endState : finalState;
  return harnessSetup.createStateConfig({
    id: ROOT,
    description: `A coding agent harness: phases ${order.join(' → ')}, each a turn cycle of context manager, model, tools and review.`,
    context: ({ input }: { input: HarnessInput }) => initialContext(input, rules),
    initial: firstPhase(rules),
    entry: [{ type: 'openRecord', params: { systemPrompt: rules.systemPrompt } }, 'startClock'],
    on: {
      'clock.restart': { actions: 'startClock' },
      'clock.warning': {
        guard: 'timeWarningDue',
        actions: { type: 'warnTime', params: { warning: warningRulesOf(rules).time, message: rules.messages.budgetWarning } },
      },
      'clock.expired': { target: '.timeout' },
      // A delegated child's spending, charged at once wherever the run is (machines/delegation/charge.ts); only
      // where the rules let the run start children.
      ...(delegates(rules) ? { 'delegation.charge': { actions: 'chargeChild' } as const } : {}),
    },
    states: {
      ...phases,
      done: end('done', rules.verification.gate ? 'The verification gate accepted finish.' : 'The model called finish (the verification gate is off).'),
      step_limit: end('step_limit', 'The step budget ran out.'),
      timeout: end('timeout', 'The time budget ran out; the call in flight was aborted.'),
      budget: end('budget', 'The token or cost budget, or the context window, would be exceeded by the next call.'),
      ...(stallEnds ? { stalled: end('stalled', 'A stall persisted after the allowed nudges with nothing new in between.') } : {}),
      failed: end('failed', 'The model endpoint (or the harness) failed after retries.'),
      ...(endHooks ? { ended: { type: 'final', description: 'The run ended and its runEnd hooks ran.', entry: 'announceEnd' } as const } : {}),
    },
    output: ({ context }: { context: HarnessContext }): HarnessOutput => ({
      // Stryker disable next-line StringLiteral: every final state's entry (endRun) sets the status before the output is read, so the fallback never shows
      status: context.status ?? 'failed',
      steps: context.step,
      summary: context.summary,
      usage: context.usage,
      reason: context.reason,
      ...(context.endedBy ? { endedBy: context.endedBy } : {}),
      ...(context.delegated ? { agents: usageByAgent(context) } : {}),
    }),
  });
}

/** Whether the run can start children: its rules declare agents and allow a level of them. */
function delegates(rules: Rules): boolean {
  return Object.keys(rules.agents).length > 0 && rules.delegation.maxDepth > 0;
}

function finalState(status: EndStatus, description: string) {
  return { type: 'final', description, entry: { type: 'endRun', params: { status, reason: description } } } as const;
}

/**
 * An end state that runs the runEnd hooks: the status is set on entry, the hooks are told, then the run is final
 * in `ended`, which writes the `end` trace line (after the hooks' lines).
 */
function endState(status: EndStatus, description: string) {
  return harnessSetup.createStateConfig({
    description: `${description} The runEnd hooks run, then the run ends (a failure is traced).`,
    // The clock stops here: the hooks have their own timeouts, and the run's time budget no longer applies.
    entry: [{ type: 'endRun', params: { status, reason: description, announce: false } }, 'stopClock'],
    invoke: {
      id: 'runEndHook',
      src: 'hooks',
      input: ({ context }) => runEndInput(context),
      onDone: { target: 'ended' },
      onError: { target: 'ended', actions: { type: 'reportHookFailure', params: ({ event }) => ({ moment: 'runEnd' as const, error: event.error }) } },
    },
  });
}

function namingOf(guards: readonly RegisteredGuard[], actions: readonly RegisteredAction[]): Naming {
  const guardNames = new Map(guards.map((guard) => [guard.name, guard.overrides ? overriddenName(guard.name) : guard.name]));
  const actionNames = new Map(actions.map((action) => [action.name, action.overrides ? overriddenName(action.name) : action.name]));
  return { guard: (name) => guardNames.get(name) ?? name, action: (name) => actionNames.get(name) ?? name };
}

/** Registered guards as machine guards: they read the guard view; a throw names the guard in the run's crash message. */
function guardImplementations(guards: readonly RegisteredGuard[]) {
  return Object.fromEntries(
    guards.map((guard) => [
      guard.overrides ? overriddenName(guard.name) : guard.name,
      ({ context }: { context: HarnessContext }, params: unknown) => {
        try {
          // Stryker disable next-line ObjectLiteral: every reference the machine builds to a registered guard carries a params object (exits, stall rules), so the fallback is never used
          return guardHolds(guard.test(guardView(context), (params ?? {}) as Record<string, unknown>));
        } catch (error) {
          throw new Error(`guard "${guard.name}" threw: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        }
      },
    ]),
  );
}

/** The gate's refusal, with a rules module's guards known: a refusal gives their reasons (or names them). */
function refusalWith(guards: readonly RegisteredGuard[]) {
  const registered = new Map(guards.map((guard) => [guard.name, guard]));
  const lookup: GuardLookup = (name) => {
    const guard = registered.get(name);
    if (!guard) return builtInLookup(name);
    return { label: guard.overrides ? overriddenName(name) : name, test: guard.test };
  };
  return enqueueActions(({ context, enqueue }, params: RefusalParams) =>
    // enqueueActions' enqueue is typed by the machine's own actions; applyUpdate takes the plain update it enqueues.
    applyUpdate(enqueue as never, context as HarnessContext, refusalUpdate(context as HarnessContext, params, lookup)),
  );
}

function actionImplementations(actions: readonly RegisteredAction[]) {
  return Object.fromEntries(
    actions.map((action) => [
      action.overrides ? overriddenName(action.name) : action.name,
      enqueueActions(({ context, enqueue }, params: ActionParams) =>
        // enqueueActions' enqueue is typed by the machine's own actions; applyUpdate takes the plain update it enqueues.
        // Stryker disable next-line ObjectLiteral: a rule's action call always becomes { type, params } with a params object (actionRef), so the fallback is never used
        applyUpdate(enqueue as never, context as HarnessContext, ruleActionUpdate(action.name, action.run, context as HarnessContext, params ?? {})),
      ),
    ]),
  );
}
