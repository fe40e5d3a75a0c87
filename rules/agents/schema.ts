import { z } from 'zod';

/**
 * Agents as data: named children the model can hand a task to with the `delegate` tool. Each is a harness of its own
 * (the same statechart: phases, gate, stall detector, context manager, budgets) whose caps are carved from what its
 * parent has left (rules/agents/carve.ts) and whose tools and sandbox are the parent's or narrower
 * (rules/agents/child-rules.ts).
 */

const agentName = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,39}$/, 'expected an agent name: a lower-case letter, then up to 39 lower-case letters, digits, "_" or "-"');

/** The rules an agent may set for itself: how its chart runs, never what it may touch (that comes from the parent). */
const OWN_RULE_KEYS = ['phases', 'verification', 'stall', 'context', 'messages', 'model', 'repositoryInstructions'] as const;
type OwnRuleKey = (typeof OWN_RULE_KEYS)[number];

const ownRules = z
  .strictObject(Object.fromEntries(OWN_RULE_KEYS.map((key) => [key, z.unknown().optional()])) as Record<OwnRuleKey, z.ZodOptional<z.ZodUnknown>>)
  .default({})
  .describe(
    `The child's own chart: ${OWN_RULE_KEYS.join(', ')}, as in a rules file, over the parent's (read-only agents start from one phase without a gate). Tools, permissions, approvals and hooks are the parent's, never wider`,
  );

const budgetRequest = z
  .strictObject({
    share: z
      .number()
      .gt(0)
      .max(1)
      .default(0.5)
      .describe(
        "Most of what the parent has left (each of steps, tokens, cost, time) one child may get: its cap is min(requested, parent's remaining × share)",
      ),
    maxSteps: z.number().int().positive().optional().describe('Steps the child asks for at most'),
    maxTokens: z.number().int().positive().optional().describe('Tokens the child asks for at most'),
    maxCostUsd: z.number().positive().optional().describe('Dollars the child asks for at most'),
    maxSeconds: z.number().positive().optional().describe('Seconds the child asks for at most'),
  })
  .prefault({});
export type BudgetRequest = z.output<typeof budgetRequest>;

export const agentSchema = z.strictObject({
  description: z.string().min(1).describe('What the agent is for: the parent model reads it in the delegate tool'),
  prompt: z.string().min(1).optional().describe("The child's system prompt (default: the parent's)"),
  tools: z.array(z.string().min(1)).optional().describe("The child's tools (names or globs); only those the parent has too are given. Default: the parent's"),
  readOnly: z
    .boolean()
    .default(false)
    .describe('Only tools that change nothing (read_file, grep, finish); the chart starts as one phase without a gate, for explorers and reviewers'),
  model: z.string().min(1).optional().describe("The model the child asks (default: the parent's)"),
  baseURL: z.url().optional().describe("The child's OpenAI-compatible endpoint, with OPENAI_API_KEY (default: the parent's)"),
  budget: budgetRequest,
  rules: ownRules,
});
export type Agent = z.output<typeof agentSchema>;

/** `agents` in a rules file: each agent's name to its definition. */
export const agentsSchema = z
  .record(agentName, agentSchema)
  .default({})
  .describe('Named agents the model may delegate a task to with the delegate tool, each a child harness with its own budget');

/** `delegation`: how far and how wide delegation may go. */
export const delegationSchema = z
  .strictObject({
    maxDepth: z
      .number()
      .int()
      .min(0)
      .max(4)
      .default(1)
      .describe('Levels of children under the run: 1 lets the run delegate but not its children; 0 switches delegation off'),
    maxParallel: z.number().int().positive().max(16).default(2).describe('Children of one parent running at the same time; more wait for a free place'),
    minSteps: z.number().int().positive().default(2).describe('Fewest steps a child is started with; a parent with less to give starts none'),
    minTokens: z
      .number()
      .int()
      .positive()
      .default(2048)
      .describe('Fewest tokens a child is started with under a token cap; a parent with less to give starts none'),
  })
  .prefault({});
export type Delegation = z.output<typeof delegationSchema>;
