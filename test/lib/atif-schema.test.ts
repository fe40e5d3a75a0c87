import { describe, expect, it } from 'vitest';
import { ATIF_SCHEMA_VERSION, atifTrajectorySchema } from '../../telemetry/atif/atif-schema.js';

/** A small valid trajectory: a user task, one agent turn with a tool call and its result, a final agent turn. */
function sample() {
  return {
    schema_version: ATIF_SCHEMA_VERSION,
    session_id: 'run-1',
    agent: { name: 'rein', version: '0.1.0', model_name: 'm' },
    steps: [
      { step_id: 1, timestamp: '2026-01-02T03:04:05Z', source: 'user' as const, message: 'Fix add()' },
      {
        step_id: 2,
        timestamp: '2026-01-02T03:04:06.250Z',
        source: 'agent' as const,
        message: '',
        tool_calls: [{ tool_call_id: 'c1', function_name: 'read_file', arguments: { path: 'a.js' } }],
        observation: { results: [{ source_call_id: 'c1', content: '[a.js]' }] },
        metrics: { prompt_tokens: 100, completion_tokens: 5, cached_tokens: 40, cost_usd: 0.001 },
      },
      { step_id: 3, source: 'system' as const, message: 'context compacted', observation: { results: [{ content: 'folded 3 messages' }] } },
    ],
    final_metrics: { total_prompt_tokens: 100, total_completion_tokens: 5, total_cached_tokens: 40, total_steps: 3 },
  };
}

const problems = (value: unknown) => {
  const result = atifTrajectorySchema.safeParse(value);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

describe('the ATIF-v1.4 model', () => {
  it('accepts a trajectory shaped as the RFC describes, system observations included', () => {
    expect(problems(sample())).toEqual([]);
  });

  it('rejects another schema version, a missing agent version and fields the RFC does not name', () => {
    expect(problems({ ...sample(), schema_version: 'ATIF-v1.3' })).toEqual([expect.stringMatching(/^schema_version/)]);
    const noVersion = sample();
    (noVersion.agent as Record<string, unknown>).version = undefined;
    expect(problems(noVersion)).toEqual([expect.stringMatching(/^agent\.version/)]);
    expect(problems({ ...sample(), steps_count: 3 })).toEqual([expect.stringMatching(/steps_count/)]);
  });

  it('requires step ids 1, 2, 3… in order', () => {
    const gap = sample();
    gap.steps[2]!.step_id = 4;
    expect(problems(gap)).toEqual(['steps.2.step_id: step ids count up from 1: expected 3, got 4']);
  });

  it('keeps agent-only fields off user and system steps', () => {
    const bad = sample();
    Object.assign(bad.steps[0]!, { metrics: { prompt_tokens: 1 }, model_name: 'm' });
    expect(problems(bad)).toEqual([expect.stringMatching(/^steps\.0\.model_name/), expect.stringMatching(/^steps\.0\.metrics/)]);
  });

  it('ties each observation to a tool call of its own step', () => {
    const bad = sample();
    (bad.steps[1]!.observation!.results[0] as { source_call_id?: string }).source_call_id = 'c9';
    expect(problems(bad)).toEqual(['steps.1.observation.results.0.source_call_id: "c9" is not a tool_call_id of this step']);
  });

  it('rejects a timestamp that is not ISO 8601 and negative token counts', () => {
    const bad = sample();
    bad.steps[0]!.timestamp = 'yesterday';
    bad.steps[1]!.metrics!.cached_tokens = -1;
    expect(problems(bad)).toHaveLength(2);
  });
});
