import { describe, expect, it } from 'vitest';
import { ATIF_SCHEMA_VERSION, atifTrajectorySchema, reinTrajectorySchema } from '../../telemetry/atif/atif-schema.js';
import { isIsoTimestamp } from '../../telemetry/atif/iso-timestamp.js';
import { harborVerdicts } from '../helpers/atif-verdicts.js';

const verdicts = harborVerdicts();
const problems = (schema: typeof atifTrajectorySchema, value: unknown) => {
  const result = schema.safeParse(value);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

describe('the ATIF-v1.7 model, judged by Harbor’s own validator', () => {
  it('agrees with Harbor on every recorded case: real trajectories (Claude Code, Terminus-2, rein) whole and changed one rule at a time', () => {
    const agreed = verdicts.filter((verdict) => !verdict.rein_differs);
    expect(agreed.length).toBeGreaterThan(50);
    expect(agreed.filter((verdict) => verdict.valid).length).toBeGreaterThan(25);
    const disagreements = agreed
      .map((verdict) => ({ name: verdict.name, harbor: verdict.valid ? 'valid' : verdict.errors[0], rein: problems(atifTrajectorySchema, verdict.document) }))
      .filter((entry) => (entry.harbor === 'valid') !== (entry.rein.length === 0));
    expect(disagreements).toEqual([]);
  });

  it('differs from Harbor only where it says so: a number must be a JSON number (pydantic’s lax mode also takes "1")', () => {
    const differing = verdicts.filter((verdict) => verdict.rein_differs);
    expect(differing.map((verdict) => verdict.name)).toEqual(["step id as the string '1'"]);
    for (const verdict of differing) {
      expect(verdict.valid).toBe(true);
      expect(problems(atifTrajectorySchema, verdict.document)).toEqual([expect.stringMatching(/^steps\.0\.step_id/)]);
    }
  });

  it('writes the newest version, and reads every version Harbor reads', () => {
    expect(ATIF_SCHEMA_VERSION).toBe('ATIF-v1.7');
    const timeout = verdicts.find((verdict) => verdict.name.includes('timeout.v1.6'))!;
    expect((timeout.document as { schema_version: string }).schema_version).toBe('ATIF-v1.6');
    expect(problems(atifTrajectorySchema, timeout.document)).toEqual([]);
  });

  it('rein holds its own export to more: no negative counts, no tool-call id twice in a step (Harbor lets both pass)', () => {
    for (const name of ['a negative prompt token count', 'a tool call id twice in a step']) {
      const verdict = verdicts.find((entry) => entry.name === name)!;
      expect(verdict.valid).toBe(true);
      expect(problems(atifTrajectorySchema, verdict.document)).toEqual([]);
      expect(problems(reinTrajectorySchema, verdict.document)).toHaveLength(1);
    }
  });

  it('says where and why a trajectory fails', () => {
    const gap = verdicts.find((verdict) => verdict.name === 'a gap in step ids')!;
    expect(problems(atifTrajectorySchema, gap.document)).toEqual(['steps.2.step_id: step ids count up from 1: expected 3, got 4']);
    const lonely = verdicts.find((verdict) => verdict.name === 'a subagent reference by session id alone')!;
    expect(problems(atifTrajectorySchema, lonely.document)).toEqual([
      'steps.1.observation.results.0.subagent_trajectory_ref.0: a subagent reference needs trajectory_id (embedded) or trajectory_path (a file); session_id alone does not resolve',
    ]);
  });
});

describe('ISO 8601 as Python’s datetime.fromisoformat reads it', () => {
  it.each([
    ['2026-08-05T18:59:15.639Z', true],
    ['2026-08-05', true],
    ['20260805', true],
    ['2026-W32-3', true],
    ['2026-08-05 18:59', true],
    ['2026-08-05T1859', true],
    ['2026-08-05T18:59:15,5+05:30', true],
    ['2024-02-29T00:00:00', true],
    ['2025-02-29T00:00:00', false],
    ['2026-13-01', false],
    ['2026-08-05T18:60', false],
    ['2026-08-05T18:5', false],
    ['2026-08-05T18:59:15+2', false],
    ['05/08/2026', false],
    ['', false],
  ])('%s → %s', (text, valid) => {
    expect(isIsoTimestamp(text)).toBe(valid);
  });
});
