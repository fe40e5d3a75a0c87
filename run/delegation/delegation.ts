import { join } from 'node:path';
import type { Actor, AnyActorLogic } from 'xstate';
import { openAIModelSource } from '../../actors/model/model-source.js';
import { UsageError } from '../../lib/errors.js';
import type { Usage } from '../../lib/usage.js';
import type { ChildEnding } from '../../machines/delegation/charge.js';
import type { HarnessContext } from '../../machines/types.js';
import { addUse, type BudgetAmounts, type BudgetUse, carveBudget, heldBy, NO_BUDGET_USE } from '../../rules/agents/carve.js';
import { childRules } from '../../rules/agents/child-rules.js';
import type { Agent } from '../../rules/agents/schema.js';
import type { Rules } from '../../rules/schema.js';
import type { DelegatedTask, DelegationPort, ToolOutcome } from '../../tools/types.js';
import type { Tracer } from '../record/trace.js';
import type { RunHandle, RunOptions } from '../start-run.js';
import { runChild } from './child-run.js';

/** Where a run stands in the tree: 0 for the run a person started, 1 for its children, … */
export interface AgentLink {
  agent: string;
  depth: number;
  /** The parent's run directory and the `delegate` call that started this child. */
  parentRunDir: string;
  callId: string;
  child: string;
}

/** How a child run is started or continued: `startRun` and `resumeRun`, handed in so this folder does not import its caller. */
export interface Launch {
  start(options: RunOptions): Promise<RunHandle>;
  resume(options: RunOptions): Promise<RunHandle>;
}

/** The run's side of delegation: the port the delegate tool calls, and the parent actor it charges once that exists. */
interface Delegation {
  port: DelegationPort;
  attach(actor: Actor<AnyActorLogic>): void;
  /** How a child parked on an approval parks the whole run (run-to-end.ts). */
  parkWith(park: (what: string) => void): void;
}

/**
 * The run's delegation, or null when its rules declare no agents or its depth allows no more children. Each child
 * is a run of its own (the same statechart, its own sandbox, trace, record and saved state, in
 * `<runDir>/agents/<step>-<call>-<task>-<agent>/`) with rules narrowed from the parent's and caps carved from what the
 * parent has left; its spending is charged to the parent's machine as it happens.
 *
 * @example const delegation = openDelegation({ options, trace, launch: { start: startRun, resume: resumeRun }, elapsedMs: 0 });
 */
export function openDelegation(parts: { options: RunOptions; trace: Tracer; launch: Launch; elapsedMs: number }): Delegation | null {
  const { options } = parts;
  const { rules } = options;
  const depth = options.agentLink?.depth ?? 0;
  const names = Object.keys(rules.agents);
  if (names.length === 0 || depth >= depthLimit(options)) return null;
  checkAgents(rules);
  let parent: Actor<AnyActorLogic> | null = null;
  let parkRun: (what: string) => void = () => undefined;
  const startedAt = Date.now() - parts.elapsedMs;
  const running = new Map<string, BudgetAmounts>();
  const queue = limiter(rules.delegation.maxParallel);

  const parentContext = (): HarnessContext => {
    if (!parent) throw new Error('delegation: the parent actor is not attached yet');
    return parent.getSnapshot().context as HarnessContext;
  };
  const charge = (child: string, agent: string, totals: { steps: number; usage: Usage; ended?: ChildEnding }) => {
    if (parent?.getSnapshot().status !== 'active') return;
    parent.send({ type: 'delegation.charge', child, agent, ...totals });
  };
  const carve = (child: string, agent: Agent) => {
    const context = parentContext();
    const spent = treeSpent(context, (Date.now() - startedAt) / 1000);
    let held: BudgetUse = NO_BUDGET_USE;
    for (const [id, caps] of running) held = addUse(held, heldBy(caps, chargedTo(context, id)));
    const carved = carveBudget({ caps: capsOf(rules), spent, held, request: agent.budget, minimum: rules.delegation });
    if (carved.ok) running.set(child, carved.caps);
    return carved;
  };

  const port: DelegationPort = {
    agents: names.map((name) => ({ name, description: rules.agents[name]!.description, readOnly: rules.agents[name]!.readOnly })),
    maxParallel: rules.delegation.maxParallel,
    async run(tasks: readonly DelegatedTask[], call, signal, mode): Promise<ToolOutcome> {
      const reports = await Promise.all(
        tasks.map((task, index) =>
          queue(() => {
            const child = `${call.key}:${index}`;
            const agent = rules.agents[task.agent];
            if (!agent) return Promise.resolve({ text: `Agent "${task.agent}" does not exist; agents: ${names.join(', ')}.`, changed: [] });
            return runChild({
              options,
              trace: parts.trace,
              launch: parts.launch,
              task,
              agent,
              link: { agent: task.agent, depth: depth + 1, parentRunDir: options.runDir, callId: call.id, child },
              runDir: join(options.runDir, 'agents', `${child.replaceAll(':', '-')}-${task.agent}`),
              resume: mode.resume,
              signal,
              carve: () => carve(child, agent),
              rulesFor: (caps) => childRules({ parent: rules, agent, caps, depthLeft: depthLimit(options) - depth - 1 }),
              modelFor: () => modelOf(options, task.agent, agent),
              charge: (totals) => charge(child, task.agent, totals),
              charged: () => (parent ? chargedTo(parentContext(), child) : NO_BUDGET_USE),
              park: (what) => parkRun(what),
            }).finally(() => running.delete(child));
          }),
        ),
      );
      const changed = [...new Set(reports.flatMap((report) => report.changed))];
      const content = reports.map((report) => report.text).join('\n\n');
      // A child that changed files makes every earlier verification stale: the parent's gate sees it as an edit.
      const [first, ...also] = changed;
      return {
        content,
        ok: true,
        effect: first !== undefined ? { kind: 'edit', path: first, applied: true, ...(also.length > 0 ? { also } : {}) } : { kind: 'none' },
      };
    },
  };
  return {
    port,
    attach: (actor) => {
      parent = actor;
    },
    parkWith: (park) => {
      parkRun = park;
    },
  };
}

/** Levels of children the tree may have: the top run's rules decide, a child's are its parent's less one. */
function depthLimit(options: RunOptions): number {
  return (options.agentLink?.depth ?? 0) + options.rules.delegation.maxDepth;
}

/** Every agent's rules must build: a mistake in one is a usage error before the run starts, not a surprise mid-run. */
function checkAgents(rules: Rules): void {
  for (const [name, agent] of Object.entries(rules.agents)) {
    try {
      childRules({ parent: rules, agent, caps: { steps: 1, seconds: 1 }, depthLeft: 0 });
    } catch (error) {
      throw new UsageError(`agents.${name}.rules: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

function capsOf(rules: Rules): BudgetAmounts {
  const { budgets } = rules;
  return {
    steps: budgets.maxSteps,
    seconds: budgets.maxSeconds,
    ...(budgets.maxTokens !== undefined ? { tokens: budgets.maxTokens } : {}),
    ...(budgets.maxCostUsd !== undefined ? { costUsd: budgets.maxCostUsd } : {}),
  };
}

/** What the whole tree has spent, as the parent's machine knows it (its children's spending is charged to it). */
function treeSpent(context: HarnessContext, seconds: number): BudgetUse {
  return {
    steps: context.step + (context.delegated?.steps ?? 0),
    seconds,
    tokens: context.usage.promptTokens + context.usage.completionTokens,
    costUsd: context.usage.costUsd,
  };
}

function chargedTo(context: HarnessContext, child: string): BudgetUse {
  const charged = context.delegated?.children[child];
  if (!charged) return NO_BUDGET_USE;
  return { steps: charged.steps, seconds: 0, tokens: charged.usage.promptTokens + charged.usage.completionTokens, costUsd: charged.usage.costUsd };
}

/** The agent's model: a test's source by name, its own endpoint or model name, else the parent's. */
function modelOf(options: RunOptions, name: string, agent: Agent) {
  const given = options.agentModels?.[name];
  if (given) return given;
  if (agent.model === undefined && agent.baseURL === undefined) return options.model;
  const env = options.env ?? process.env;
  const baseURL = agent.baseURL ?? options.model.baseURL;
  return openAIModelSource(
    { model: agent.model ?? options.model.name, ...(baseURL ? { baseURL } : {}), ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}) },
    options.rules,
  );
}

/** At most `limit` of the tasks given to it run at once; the others wait in order. */
function limiter(limit: number) {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active += 1;
    try {
      return await task();
    } finally {
      active -= 1;
      waiting.shift()?.();
    }
  };
}
