import { z } from 'zod';
import { isIsoTimestamp } from './iso-timestamp.js';

/**
 * The Agent Trajectory Interchange Format, version 1.7, as Harbor's RFC 0001
 * (`rfcs/0001-trajectory-format.md` in harbor-framework/harbor) and its
 * pydantic models (`harbor.models.trajectories`) define it: the file Harbor
 * reads as an agent's `trajectory.json`. Written here field for field from
 * the RFC's tables and the models' rules, not from Harbor's code. Harbor has
 * one model for every version (a file that says "ATIF-v1.4" is held to the
 * v1.7 rules), and so does this.
 *
 * `atifTrajectorySchema` takes what Harbor's validator takes: objects are
 * strict (a field the RFC does not name fails), optional fields may be null,
 * and the cross-field rules are checked (step ids count up from 1,
 * agent-only fields only on agent steps, `llm_call_count: 0` without LLM
 * fields, a result's `source_call_id` names a call of its own step, a
 * subagent reference is resolvable, embedded subagents carry unique
 * `trajectory_id`s, a content part is text or image). One difference on
 * purpose: numbers must be JSON numbers, where pydantic's lax mode also
 * takes the string "5" and `true` for an int. `reinTrajectorySchema` adds
 * what rein holds its own export to on top: no negative counts or cost,
 * tool-call ids unique within a step.
 *
 * @example const trajectory = atifTrajectorySchema.parse(JSON.parse(readFileSync('trajectory.json', 'utf8')));
 */
export const ATIF_SCHEMA_VERSION = 'ATIF-v1.7';

/** Every schema version Harbor's model accepts. */
const ATIF_SCHEMA_VERSIONS = ['ATIF-v1.0', 'ATIF-v1.1', 'ATIF-v1.2', 'ATIF-v1.3', 'ATIF-v1.4', 'ATIF-v1.5', 'ATIF-v1.6', 'ATIF-v1.7'] as const;

const extra = z.record(z.string(), z.unknown()).nullish().describe('Custom data the core schema does not cover.');
const int = z.number().int();
const timestamp = z.string().refine(isIsoTimestamp, { message: 'not an ISO 8601 timestamp (datetime.fromisoformat cannot read it)' });

const imageSourceSchema = z.strictObject({
  media_type: z.enum(['image/jpeg', 'image/png', 'image/gif', 'image/webp']),
  path: z.string().describe('A relative or absolute file path, or a URL.'),
});

const contentPartSchema = z
  .strictObject({ type: z.enum(['text', 'image']), text: z.string().nullish(), source: imageSourceSchema.nullish() })
  .superRefine((part, check) => {
    const [needs, forbids] = part.type === 'text' ? (['text', 'source'] as const) : (['source', 'text'] as const);
    if (part[needs] == null) check.addIssue({ code: 'custom', path: [needs], message: `"${needs}" is required when type is "${part.type}"` });
    if (part[forbids] != null) check.addIssue({ code: 'custom', path: [forbids], message: `"${forbids}" is not allowed when type is "${part.type}"` });
  });

/** Text, or (since v1.6) a list of text and image parts. */
const contentSchema = z.union([z.string(), z.array(contentPartSchema)]);

const atifAgentSchema = z.strictObject({
  name: z.string().describe('The agent system, e.g. "rein".'),
  version: z.string().describe('Its version, e.g. "0.1.0".'),
  model_name: z.string().nullish().describe('Default model of the trajectory; a step’s model_name overrides it.'),
  tool_definitions: z.array(z.record(z.string(), z.unknown())).nullish().describe('The tools offered, in OpenAI’s function-calling schema (v1.5).'),
  extra,
});

const atifToolCallSchema = z.strictObject({
  tool_call_id: z.string().describe('Correlates with an observation result’s source_call_id.'),
  function_name: z.string(),
  arguments: z.record(z.string(), z.unknown()).describe('A JSON object, possibly empty.'),
  extra,
});

/** A delegated subagent's trajectory: embedded (`trajectory_id` names an entry of the root's `subagent_trajectories`) or a file (`trajectory_path`). */
const atifSubagentTrajectoryRefSchema = z
  .strictObject({
    trajectory_id: z.string().nullish(),
    session_id: z.string().nullish().describe('Informational only since v1.7: never a key to resolve the reference by.'),
    trajectory_path: z.string().nullish(),
    extra,
  })
  .refine((ref) => ref.trajectory_id != null || ref.trajectory_path != null, {
    message: 'a subagent reference needs trajectory_id (embedded) or trajectory_path (a file); session_id alone does not resolve',
  });

const atifObservationResultSchema = z.strictObject({
  source_call_id: z.string().nullish().describe('The tool call this result answers; absent for non-tool actions and system operations.'),
  content: contentSchema.nullish(),
  subagent_trajectory_ref: z.array(atifSubagentTrajectoryRefSchema).nullish(),
  extra,
});

const atifObservationSchema = z.strictObject({ results: z.array(atifObservationResultSchema) });

const atifMetricsSchema = z.strictObject({
  prompt_tokens: int.nullish().describe('All input tokens of the call, cached ones included.'),
  completion_tokens: int.nullish(),
  cached_tokens: int.nullish().describe('The part of prompt_tokens served from a prompt cache.'),
  cost_usd: z.number().nullish(),
  prompt_token_ids: z.array(int).nullish(),
  completion_token_ids: z.array(int).nullish(),
  logprobs: z.array(z.number()).nullish(),
  extra,
});

const atifFinalMetricsSchema = z.strictObject({
  total_prompt_tokens: int.nullish(),
  total_completion_tokens: int.nullish(),
  total_cached_tokens: int.nullish(),
  total_cost_usd: z.number().nullish(),
  total_steps: int.min(0).nullish(),
  extra,
});

const AGENT_ONLY = ['model_name', 'reasoning_effort', 'reasoning_content', 'tool_calls', 'metrics'] as const;

const atifStepSchema = z
  .strictObject({
    step_id: int.min(1),
    timestamp: timestamp.nullish(),
    source: z.enum(['system', 'user', 'agent']),
    model_name: z.string().nullish(),
    reasoning_effort: z.union([z.string(), z.number()]).nullish(),
    message: contentSchema.describe('Required; may be empty.'),
    reasoning_content: z.string().nullish(),
    tool_calls: z.array(atifToolCallSchema).nullish(),
    observation: atifObservationSchema.nullish(),
    metrics: atifMetricsSchema.nullish(),
    is_copied_context: z.boolean().nullish().describe('Copied from an earlier trajectory for context; not for training (v1.5).'),
    llm_call_count: int.min(0).nullish().describe('Model calls this step stands for; 0 is a deterministic dispatch (v1.7).'),
    extra,
  })
  .superRefine((step, check) => {
    if (step.source !== 'agent') {
      for (const field of AGENT_ONLY)
        if (step[field] != null) check.addIssue({ code: 'custom', path: [field], message: `${field} is only for agent steps (this one is "${step.source}")` });
    } else if (step.llm_call_count === 0) {
      for (const field of ['metrics', 'reasoning_content'] as const)
        if (step[field] != null) check.addIssue({ code: 'custom', path: [field], message: `${field} must be absent when llm_call_count is 0` });
    }
    const ids = new Set((step.tool_calls ?? []).map((call) => call.tool_call_id));
    step.observation?.results.forEach((result, index) => {
      if (result.source_call_id != null && !ids.has(result.source_call_id))
        check.addIssue({
          code: 'custom',
          path: ['observation', 'results', index, 'source_call_id'],
          message: `"${result.source_call_id}" is not a tool_call_id of this step`,
        });
    });
  });

/** A trajectory's own fields; `subagent_trajectories` holds complete trajectories of the same shape. */
interface TrajectoryShape {
  schema_version?: (typeof ATIF_SCHEMA_VERSIONS)[number] | undefined;
  session_id?: string | null | undefined;
  trajectory_id?: string | null | undefined;
  agent: z.infer<typeof atifAgentSchema>;
  steps: z.infer<typeof atifStepSchema>[];
  notes?: string | null | undefined;
  final_metrics?: z.infer<typeof atifFinalMetricsSchema> | null | undefined;
  continued_trajectory_ref?: string | null | undefined;
  extra?: Record<string, unknown> | null | undefined;
  subagent_trajectories?: TrajectoryShape[] | null | undefined;
}

export const atifTrajectorySchema: z.ZodType<TrajectoryShape> = z
  .strictObject({
    schema_version: z.enum(ATIF_SCHEMA_VERSIONS).optional().describe('Harbor’s default is the newest, ATIF-v1.7.'),
    session_id: z.string().nullish().describe('The run this trajectory belongs to (run-scoped since v1.7; subagents and continuations may share it).'),
    trajectory_id: z.string().nullish().describe('This document’s own id; required on an embedded subagent (v1.7).'),
    agent: atifAgentSchema,
    steps: z.array(atifStepSchema).min(1),
    notes: z.string().nullish(),
    final_metrics: atifFinalMetricsSchema.nullish(),
    continued_trajectory_ref: z.string().nullish(),
    extra,
    get subagent_trajectories() {
      return z.array(atifTrajectorySchema).nullish();
    },
  })
  .superRefine((trajectory, check) => {
    trajectory.steps.forEach((step, index) => {
      if (step.step_id !== index + 1)
        check.addIssue({ code: 'custom', path: ['steps', index, 'step_id'], message: `step ids count up from 1: expected ${index + 1}, got ${step.step_id}` });
    });
    const seen = new Set<string>();
    (trajectory.subagent_trajectories ?? []).forEach((sub, index) => {
      const path = ['subagent_trajectories', index, 'trajectory_id'];
      if (sub.trajectory_id == null) check.addIssue({ code: 'custom', path, message: 'an embedded subagent needs a trajectory_id' });
      else if (seen.has(sub.trajectory_id))
        check.addIssue({ code: 'custom', path, message: `"${sub.trajectory_id}" is not unique within subagent_trajectories` });
      else seen.add(sub.trajectory_id);
    });
  });

const COUNTS = ['prompt_tokens', 'completion_tokens', 'cached_tokens', 'cost_usd'] as const;
const TOTALS = ['total_prompt_tokens', 'total_completion_tokens', 'total_cached_tokens', 'total_cost_usd'] as const;

/** What rein holds its own export to, beyond Harbor's model: no negative counts or cost, and no tool-call id twice in a step. */
export const reinTrajectorySchema = atifTrajectorySchema.superRefine((trajectory, check) => {
  trajectory.steps.forEach((step, index) => {
    for (const field of COUNTS)
      if ((step.metrics?.[field] ?? 0) < 0) check.addIssue({ code: 'custom', path: ['steps', index, 'metrics', field], message: `${field} is negative` });
    const ids = (step.tool_calls ?? []).map((call) => call.tool_call_id);
    if (new Set(ids).size !== ids.length)
      check.addIssue({ code: 'custom', path: ['steps', index, 'tool_calls'], message: 'tool_call_id repeated within the step' });
  });
  for (const field of TOTALS)
    if ((trajectory.final_metrics?.[field] ?? 0) < 0) check.addIssue({ code: 'custom', path: ['final_metrics', field], message: `${field} is negative` });
});

export type AtifTrajectory = TrajectoryShape;
export type AtifStep = z.infer<typeof atifStepSchema>;
export type AtifToolCall = z.infer<typeof atifToolCallSchema>;
export type AtifObservationResult = z.infer<typeof atifObservationResultSchema>;
