import { mergeRules, type Plain } from '../merge.js';
import { type Rules, rulesSchema } from '../schema.js';
import { toolMatches } from '../tool-names.js';
import type { BudgetAmounts } from './carve.js';
import type { Agent } from './schema.js';

/** Tools that change nothing: all a read-only agent (an explorer, a reviewer) gets. */
const READ_ONLY_TOOLS: readonly string[] = ['read_file', 'grep', 'finish'];
/** Tools no child gets: the workspace's todo file (`.rein/progress.json`) is the run's own. */
const PARENT_ONLY_TOOLS: readonly string[] = ['update_todo'];

/** The one phase a read-only agent runs unless its rules give phases: look, then finish (no gate: it changes nothing to verify). */
const READ_ONLY_PHASE = {
  description: 'Read what the task needs and report it with finish; nothing here can change the workspace.',
  tools: 'all',
  exits: [],
};

/**
 * A child's rules: the parent's, with the agent's own chart (its phases, gate, stall and context rules) over them,
 * its caps as its budgets, and its tools the parent's narrowed by the agent's list. What the child may touch
 * (permissions, the sandbox, approvals, hooks, the price table) is the parent's and cannot be changed by the agent:
 * a child can never widen what the parent may do. `depthLeft` is how many levels of children it may start itself.
 *
 * @example childRules({ parent: rules, agent: rules.agents.reviewer, caps: { steps: 8, seconds: 120 }, depthLeft: 0 })
 */
export function childRules(parts: { parent: Rules; agent: Agent; caps: BudgetAmounts; depthLeft: number }): Rules {
  const { parent, agent, caps, depthLeft } = parts;
  const chart: Plain = agent.readOnly && agent.rules.phases === undefined ? readOnlyChart(parent) : {};
  const merged = mergeRules(parent as unknown as Plain, chart, agent.rules as Plain);
  const rules = rulesSchema.parse({
    ...merged,
    // Parsed rules are complete; the phases' table is given again as its own input (exits already merged).
    ...(agent.prompt ? { systemPrompt: agent.prompt } : {}),
    tools: { ...parent.tools, enabled: childTools(parent, agent) },
    budgets: {
      ...parent.budgets,
      maxSteps: caps.steps,
      maxSeconds: caps.seconds,
      maxTokens: caps.tokens,
      maxCostUsd: caps.costUsd,
    },
    permissions: parent.permissions,
    approvals: parent.approvals,
    hooks: parent.hooks,
    // A child starts no MCP servers of its own: the parent's servers belong to the parent's run.
    mcp: { ...parent.mcp, servers: {} },
    delegation: { ...parent.delegation, maxDepth: depthLeft },
  });
  // The price table is the parent's whatever the agent says: a child cannot make its spending look cheaper.
  return { ...rules, model: { ...rules.model, prices: parent.model.prices } };
}

/** The parent's tools the agent may have, in the parent's order; `finish` always (a child must be able to end). */
export function childTools(parent: Pick<Rules, 'tools'>, agent: Pick<Agent, 'tools' | 'readOnly'>): string[] {
  return parent.tools.enabled.filter((name) => {
    if (name === 'finish') return true;
    if (PARENT_ONLY_TOOLS.includes(name)) return false;
    if (agent.readOnly && !READ_ONLY_TOOLS.includes(name)) return false;
    return agent.tools === undefined || agent.tools.some((entry) => toolMatches(entry, name));
  });
}

function readOnlyChart(parent: Rules): Plain {
  const off = Object.fromEntries(Object.keys(parent.phases).map((name) => [name, { enabled: false }]));
  return { phases: { ...off, explore: READ_ONLY_PHASE }, verification: { gate: false } };
}
