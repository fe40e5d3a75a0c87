import type { JobView } from '../sandbox/jobs/job-store.js';
import type { RunSandbox } from '../sandbox/run-sandbox.js';
import type { JobEffect, ToolContext, ToolOutcome } from '../types.js';

/**
 * The observation for a job after a `run` or `job` call: its state line, its
 * log, how to read and stop it while it runs, and the output the agent has
 * not seen yet (head and tail within the output cap).
 *
 * @example reportJob(sandbox, job, 'read', ctx) // { content: 'job=1 running for 12s (process group 7): npm run dev\nlog: …', ... }
 */
export function reportJob(sandbox: RunSandbox, job: JobView, action: JobEffect['action'], ctx: ToolContext): ToolOutcome {
  const { text, newBytes, size } = sandbox.readJob(job.id, ctx.limits.outputChars);
  const lines = [`job=${job.id} ${describeState(job)}: ${oneLine(job.command)}`, `log: ${job.log} (${size} bytes)`];
  if (job.state === 'running') {
    lines.push(
      `It runs until it ends, you stop it, or the run ends. New output: the job tool with id "${job.id}" (or \`tail\` the log); stop it: job with stop: true${job.pgid ? ` (or \`kill -- -${job.pgid}\`)` : ''}.`,
    );
  }
  lines.push(newBytes > 0 ? `--- new output (${newBytes} bytes) ---\n${text.endsWith('\n') ? text.slice(0, -1) : text}` : '--- no new output ---');
  const running = sandbox.jobs().filter((other) => other.state === 'running').length;
  const effect: JobEffect = {
    kind: 'job',
    action,
    id: job.id,
    command: job.command,
    state: job.state,
    exitCode: job.exitCode,
    log: job.log,
    newBytes,
    running,
  };
  return { content: `${lines.join('\n')}\n`, ok: true, effect };
}

/** `No background jobs…` or one line per job. */
export function listJobs(sandbox: RunSandbox): ToolOutcome {
  const jobs = sandbox.jobs();
  const running = jobs.filter((job) => job.state === 'running').length;
  const effect: JobEffect = { kind: 'job', action: 'list', id: null, command: '', state: null, exitCode: null, log: '', newBytes: 0, running };
  const content =
    jobs.length === 0
      ? 'No background jobs in this run. Start one with run (background: true, or a command ending in &).'
      : jobs.map((job) => `job=${job.id} ${describeState(job)}: ${oneLine(job.command)}`).join('\n');
  return { content, ok: true, effect };
}

/** `running for 12s`, `exited with 1 after 3s`, `stopped (stopped by the agent) after 40s`, `lost (…)`. */
function describeState(job: JobView): string {
  const seconds = (((job.endedAt ?? Date.now()) - job.startedAt) / 1000).toFixed(1);
  const group = job.pgid ? ` (process group ${job.pgid})` : '';
  switch (job.state) {
    case 'running':
      return `running for ${seconds}s${group}`;
    case 'exited':
      return `exited with ${job.exitCode} after ${seconds}s`;
    case 'stopped':
      return `stopped (${job.cause ?? 'stopped'}) after ${seconds}s`;
    case 'lost':
      return `lost (${job.cause ?? 'it died with rein'})`;
  }
}

function oneLine(command: string): string {
  const flat = command.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}
