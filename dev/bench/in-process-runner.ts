import { inLanes } from 'rein/lib';
import type { JobRunner } from 'rein-eval/eval-runner.js';
import { runEvalJob } from 'rein-eval/run-task.js';

/**
 * Runs eval jobs in this process, `parallel` at a time, with the same code a
 * pool worker runs (`runEvalJob`: fresh workspace, the harness, the task's
 * check), but without starting a Node process per run. For the bench's suite
 * section, whose figures are tokens and outcomes (the same either way): it
 * spares it a process start and module load per run. It has none of the
 * pool's isolation (a crash or a hung run takes the bench with it), so it is
 * only for the simulated suite, whose runs end by their step budget.
 *
 * @example await runEval({ ...options, runner: inProcessRunner(2) });
 */
export function inProcessRunner(parallel: number): JobRunner {
  return {
    async run(jobs, report) {
      await inLanes(jobs, parallel, async (job) => report.record(await runEvalJob(job), job));
    },
  };
}
