import { z } from 'zod';

/** One line of `results.jsonl`: one (task, configuration, repeat). */
export const runRecordSchema = z.looseObject({
  task: z.string(),
  config: z.string(),
  repeat: z.number().int().nonnegative(),
  resolved: z.boolean(),
  status: z.string(),
  reason: z.string().default(''),
  steps: z.number().default(0),
  promptTokens: z.number().default(0),
  completionTokens: z.number().default(0),
  cachedTokens: z.number().default(0),
  costUsd: z.number().default(0),
  price: z.string().default('none'),
  wallSeconds: z.number().default(0),
  stallFirings: z.number().default(0),
  gateRefusals: z.number().default(0),
  contextElisions: z.number().default(0),
  contextSummaries: z.number().default(0),
  approvalAsks: z.number().default(0),
  approvalDenials: z.number().default(0),
  checkExitCode: z.number().nullable().default(null),
  checkOutput: z.string().default(''),
  model: z.string().default(''),
  configHash: z.string().default(''),
  tracePath: z.string().default(''),
  startedAt: z.string().default(''),
  /** A run that delegated: its usage per agent (`main`, the run itself, first), adding up to the run's. */
  agents: z
    .array(
      z.object({
        agent: z.string(),
        runs: z.number(),
        steps: z.number(),
        promptTokens: z.number(),
        completionTokens: z.number(),
        costUsd: z.number(),
      }),
    )
    .optional(),
});

export type RunRecord = z.infer<typeof runRecordSchema>;

/** The identity of a run in `results.jsonl` (what resume matches on). */
export function runKey(record: { task: string; config: string; repeat: number }): string {
  return `${record.task}\u0000${record.config}\u0000${record.repeat}`;
}
