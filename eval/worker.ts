/**
 * Entry of an eval worker process (forked by `eval/pool.ts`): receives one
 * job over IPC, runs it, sends the record back and exits. On SIGTERM (the
 * parent's timeout) or when the parent goes away, it stops the harness so
 * in-flight tool commands are killed with their process groups, then exits.
 *
 * The IPC listeners are set before the harness is loaded (a dynamic import),
 * so the channel is watched from the first moment.
 */

import type { RunHandle } from 'rein/run';
import { WORKER_STOP_GRACE_MS } from 'rein/sandbox';
import type { EvalJob, WorkerMessage } from './job.js';

let running: RunHandle | null = null;

function send(message: WorkerMessage, then?: () => void): void {
  if (process.connected) process.send!(message, undefined, {}, () => then?.());
  else then?.();
}

function stopAndExit(code: number): void {
  running?.actor.stop();
  setTimeout(() => process.exit(code), running ? WORKER_STOP_GRACE_MS : 0).unref();
}

async function serve(job: EvalJob): Promise<void> {
  const { runEvalJob } = await import('./run-task.js');
  const record = await runEvalJob(job, {
    phase: (phase, seconds, workspace) => send({ type: 'phase', phase, seconds, workspace }),
    started: (handle) => {
      running = handle;
    },
  });
  running = null;
  send({ type: 'result', record }, () => process.exit(0));
}

process.on('SIGTERM', () => stopAndExit(143));
process.on('disconnect', () => stopAndExit(0));
process.once('message', (message: { type: 'job'; job: EvalJob }) => {
  serve(message.job).catch((error: unknown) => {
    process.stderr.write(`rein eval worker: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(70);
  });
});
