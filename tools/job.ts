import { z } from 'zod';
import { listJobs, reportJob } from './shaping/job-report.js';
import type { Tool } from './types.js';

const parameters = z
  .object({
    id: z.union([z.string(), z.number().int()]).optional().describe('The job id that run returned. Without it, lists the jobs.'),
    stop: z.boolean().default(false).describe('Stop the job: SIGTERM to its process group, SIGKILL a second later.'),
    wait: z.number().min(0).default(0).describe('Seconds to wait for the job to end before answering (it answers as soon as it ends).'),
  })
  .strict();

/**
 * `job`: a background job's state and the output it printed since the last
 * look; `stop: true` stops it (its whole process group); `wait: N` first
 * waits up to N seconds (at most the command timeout) for it to end. Jobs
 * come from `run` with `background: true` or a trailing `&`, live in the
 * run's sandbox, and are all stopped when the run ends.
 *
 * @example await jobTool.execute({ id: '1', wait: 30 }, ctx) // { content: 'job=1 exited with 0 after 12.3s: npm run build\n…', ... }
 */
export const jobTool: Tool<typeof parameters> = {
  name: 'job',
  description:
    'A background job started by run: its state and new output since the last look. stop: true stops it; wait: N waits up to N seconds for it to end. Without id, lists the jobs.',
  parameters,
  async execute({ id, stop, wait }, ctx) {
    const sandbox = ctx.sandbox;
    if (!sandbox) return { content: "Tool error: background jobs need the run's sandbox (rein run).", ok: false, effect: { kind: 'none' } };
    if (id === undefined) return listJobs(sandbox);
    const job = sandbox.job(String(id));
    if (!job) {
      const known =
        sandbox
          .jobs()
          .map((candidate) => candidate.id)
          .join(', ') || 'none';
      return { content: `Tool error: no job "${String(id)}" in this run (jobs: ${known}).`, ok: false, effect: { kind: 'none' } };
    }
    if (stop) return reportJob(sandbox, await sandbox.stopJob(job.id), 'stop', ctx);
    if (wait > 0) await sandbox.waitJob(job.id, Math.min(wait, ctx.policy.timeoutSeconds) * 1000, ctx.signal);
    return reportJob(sandbox, job, 'read', ctx);
  },
};
