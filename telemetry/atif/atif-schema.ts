import { z } from 'zod';

/**
 * The Agent Trajectory Interchange Format, version 1.4, as Harbor's RFC 0001
 * ("docs/rfcs/0001-trajectory-format.md" in laude-institute/harbor) publishes
 * it: the file Harbor reads as an agent's `trajectory.json`. Written here from
 * the RFC's tables, not from Harbor's code. Objects are strict (a field the
 * RFC does not name fails, as Harbor's models reject it); custom data goes
 * under `extra`. The cross-field rules the RFC states are checked too:
 * step ids count up from 1, agent-only fields appear only on agent steps, and
 * an observation's `source_call_id` names a tool call of its own step.
 *
 * @example const trajectory = atifTrajectorySchema.parse(JSON.parse(readFileSync('trajectory.json', 'utf8')));
 */
export const ATIF_SCHEMA_VERSION = 'ATIF-v1.4';

const extra = z.record(z.string(), z.unknown()).describe('Custom data the core schema does not cover.');
const count = z.number().int().nonnegative();
/** ISO 8601 with a date and a time, e.g. 2025-10-16T14:30:00Z or with an offset. */
const iso8601 = z.iso.datetime({ offset: true, local: true });

const atifAgentSchema = z.strictObject({
  name: z.string().min(1).describe('The agent system, e.g. "rein".'),
  version: z.string().min(1).describe('Its version, e.g. "0.1.0".'),
  model_name: z.string().optional().describe('Default model of the trajectory; a step’s model_name overrides it.'),
  extra: extra.optional(),
});

const atifToolCallSchema = z.strictObject({
  tool_call_id: z.string().min(1).describe('Correlates with an observation result’s source_call_id.'),
  function_name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).describe('A JSON object, possibly empty.'),
});

const atifSubagentTrajectoryRefSchema = z.strictObject({
  session_id: z.string().min(1),
  trajectory_path: z.string().optional(),
  extra: extra.optional(),
});

const atifObservationResultSchema = z.strictObject({
  source_call_id: z.string().nullable().optional().describe('The tool call this result answers; absent for non-tool actions and system operations.'),
  content: z.string().optional(),
  subagent_trajectory_ref: z.array(atifSubagentTrajectoryRefSchema).optional(),
});

const atifObservationSchema = z.strictObject({ results: z.array(atifObservationResultSchema) });

const atifMetricsSchema = z.strictObject({
  prompt_tokens: count.optional().describe('All input tokens of the call, cached ones included.'),
  completion_tokens: count.optional(),
  cached_tokens: count.optional().describe('The part of prompt_tokens served from a prompt cache.'),
  cost_usd: z.number().nonnegative().optional(),
  prompt_token_ids: z.array(z.number().int()).optional(),
  completion_token_ids: z.array(z.number().int()).optional(),
  logprobs: z.array(z.number()).optional(),
  extra: extra.optional(),
});

const atifFinalMetricsSchema = z.strictObject({
  total_prompt_tokens: count.optional(),
  total_completion_tokens: count.optional(),
  total_cached_tokens: count.optional(),
  total_cost_usd: z.number().nonnegative().optional(),
  total_steps: count.optional(),
  extra: extra.optional(),
});

const atifStepSchema = z.strictObject({
  step_id: z.number().int().min(1),
  timestamp: iso8601.optional(),
  source: z.enum(['system', 'user', 'agent']),
  model_name: z.string().optional(),
  reasoning_effort: z.union([z.string(), z.number()]).optional(),
  message: z.string().describe('Required; may be empty.'),
  reasoning_content: z.string().optional(),
  tool_calls: z.array(atifToolCallSchema).optional(),
  observation: atifObservationSchema.optional(),
  metrics: atifMetricsSchema.optional(),
  extra: extra.optional(),
});

const AGENT_ONLY = ['model_name', 'reasoning_effort', 'reasoning_content', 'tool_calls', 'metrics'] as const;

export const atifTrajectorySchema = z
  .strictObject({
    schema_version: z.literal(ATIF_SCHEMA_VERSION),
    session_id: z.string().min(1),
    agent: atifAgentSchema,
    steps: z.array(atifStepSchema),
    notes: z.string().optional(),
    final_metrics: atifFinalMetricsSchema.optional(),
    extra: extra.optional(),
  })
  .superRefine((trajectory, check) => {
    trajectory.steps.forEach((step, index) => {
      const path = ['steps', index];
      if (step.step_id !== index + 1)
        check.addIssue({ code: 'custom', path: [...path, 'step_id'], message: `step ids count up from 1: expected ${index + 1}, got ${step.step_id}` });
      if (step.source !== 'agent') {
        for (const field of AGENT_ONLY)
          if (step[field] !== undefined)
            check.addIssue({ code: 'custom', path: [...path, field], message: `${field} is only for agent steps (this one is "${step.source}")` });
      }
      const ids = new Set((step.tool_calls ?? []).map((call) => call.tool_call_id));
      if (ids.size !== (step.tool_calls ?? []).length)
        check.addIssue({ code: 'custom', path: [...path, 'tool_calls'], message: 'tool_call_id repeated within the step' });
      step.observation?.results.forEach((result, resultIndex) => {
        if (result.source_call_id != null && !ids.has(result.source_call_id))
          check.addIssue({
            code: 'custom',
            path: [...path, 'observation', 'results', resultIndex, 'source_call_id'],
            message: `"${result.source_call_id}" is not a tool_call_id of this step`,
          });
      });
    });
  });

export type AtifTrajectory = z.infer<typeof atifTrajectorySchema>;
export type AtifStep = z.infer<typeof atifStepSchema>;
export type AtifToolCall = z.infer<typeof atifToolCallSchema>;
export type AtifObservationResult = z.infer<typeof atifObservationResultSchema>;
