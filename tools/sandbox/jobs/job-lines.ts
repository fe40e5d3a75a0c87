import type { JobEvent } from '../../../lib/trace/trace-events.js';
import type { JobView } from './job-store.js';

/**
 * A job's trace line (`kind: 'job'`): written when it starts, when it ends by
 * itself, when it is stopped (by the agent or at the end of the run) and,
 * on resume, for jobs that died with the previous process (`state: 'lost'`).
 *
 * @example trace.log('job', jobTraceLine(job)) // { id: '1', command: 'npm run dev', state: 'running', … }
 */
export function jobTraceLine(job: JobView): Omit<JobEvent, 'kind'> {
  return {
    id: job.id,
    command: job.command,
    state: job.state,
    exitCode: job.exitCode,
    pgid: job.pgid,
    log: job.log,
    startedAt: new Date(job.startedAt).toISOString(),
    ...(job.endedAt ? { endedAt: new Date(job.endedAt).toISOString() } : {}),
    ...(job.cause ? { cause: job.cause } : {}),
  };
}

/**
 * The notice a resumed run gives the agent about the jobs it had running, so
 * it does not wait on a server that is gone; empty when there were none.
 *
 * @example describeLostJobs([job]) // ['Background jobs you started are gone: rein was stopped, and they stopped with it: job 1 (npm run dev; log …). Start again what you still need.']
 */
export function describeLostJobs(jobs: readonly JobView[]): string[] {
  if (jobs.length === 0) return [];
  const list = jobs.map((job) => `job ${job.id} (${job.command.replace(/\s+/g, ' ').slice(0, 120)}; log ${job.log})`).join(', ');
  return [`Background jobs you started are gone: rein was stopped, and they stopped with it: ${list}. Start again what you still need.`];
}
