import { toPromise } from 'xstate';
import { RunAwaitingApproval, RunInterrupted } from '../../lib/errors.js';
import { thisTraceWriter } from '../../lib/trace/trace-writer.js';
import type { HarnessOutput } from '../../machines/types.js';
import { jobTraceLine } from '../../tools/sandbox/jobs/job-lines.js';
import type { SavedState } from '../record/state-file.js';
import type { Tracer } from '../record/trace.js';
import type { ResourceStack } from '../resource-stack.js';
import type { RunOptions } from '../start-run.js';
import type { HarnessActor, RunActor } from './run-actor.js';

/**
 * Starts the actor and runs it to its end; everything the run opened is released when it settles, however it settles
 * (the rules-file watch last). A headless run (no one who could answer in this process) whose rules say
 * `approvals.headless: "exit"` parks when a call waits for an answer: its state, the pending call in it, is saved
 * at the `awaitingApproval` checkpoint, and the run stops with `RunAwaitingApproval` for `rein approve` and `rein resume`.
 *
 * A run whose delegated child parked parks too (`park`), named for that child, and is answered and resumed the same way.
 *
 * @example const { done, interrupt, park } = runToEnd({ options, saved, run, trace }, held);
 */
export function runToEnd(
  parts: { options: RunOptions; saved: SavedState | null; run: RunActor; trace: Tracer; stoppedIn?: string | null },
  held: ResourceStack,
) {
  const { options, saved, trace } = parts;
  const { actor, tracer } = parts.run;
  let parked = false;
  // A delegated child parked on an approval: the whole run parks, saying which child waits for what.
  let parkedFor: string | null = null;
  let interrupted = false;
  if (parksForApprovals(options)) {
    actor.subscribe({
      next: (snapshot) => {
        const pending = snapshot.context.approvals.pending;
        if (!pending || parked) return;
        // After the approver has looked for an answer given meanwhile (it may settle at once): still waiting, the run stops.
        setImmediate(() => {
          if (actor.getSnapshot().context.approvals.pending?.callId !== pending.callId || parked) return;
          parked = true;
          actor.stop();
        });
      },
      // The run's failure is reported by `done`; an observer without an error handler would make it an uncaught one.
      error: () => undefined,
    });
  }
  if (saved) trace.log('resume', resumeLine(saved, tracer.label(), parts.stoppedIn ?? null));
  for (const job of parts.run.lostJobs) trace.log('job', jobTraceLine(job));
  const done = (async (): Promise<HarnessOutput> => {
    try {
      tracer.begin();
      actor.start();
      if (saved) actor.send({ type: 'clock.restart' });
      const output = await toPromise(actor);
      if (parkedFor !== null) throw new RunAwaitingApproval(parkedFor, answerWith(options.runDir));
      if (parked) throw awaitingApproval(actor, options.runDir);
      if (interrupted) throw new RunInterrupted(`interrupted in ${tracer.label()}; continue with: npx rein resume ${options.runDir}`);
      return output;
    } catch (error) {
      if (error instanceof RunAwaitingApproval || error instanceof RunInterrupted) trace.log('interrupted', { state: tracer.label() });
      else trace.log('crash', { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
      throw error;
    } finally {
      await held.release();
    }
  })();
  const interrupt = () => {
    interrupted = true;
    actor.stop();
  };
  const park = (what: string) => {
    if (parkedFor !== null || actor.getSnapshot().status !== 'active') return;
    parkedFor = what;
    actor.stop();
  };
  return { done, interrupt, park };
}

/** Whether a call that waits for an answer parks the run: nobody in this process can answer, and the rules say exit. */
function parksForApprovals(options: RunOptions): boolean {
  return (options.answerSources ?? []).length === 0 && options.rules.approvals.headless === 'exit';
}

function awaitingApproval(actor: HarnessActor, runDir: string): RunAwaitingApproval {
  const pending = actor.getSnapshot().context.approvals.pending;
  const what = pending ? `${pending.tool} ${JSON.stringify(pending.args).slice(0, 200)}` : 'a call';
  return new RunAwaitingApproval(`waiting for an approval of ${what} (${pending?.reason ?? 'approval rules'})`, answerWith(runDir));
}

/** How a parked run is answered and continued (a parked child's call too: `rein approve` finds it under the run). */
function answerWith(runDir: string): string {
  return `answer with: npx rein approve ${runDir} [--deny] [--message M], then continue with: npx rein resume ${runDir}`;
}

function resumeLine(saved: SavedState, fromState: string, stoppedIn: string | null) {
  return {
    fromState,
    // Only when the stopped process had got past the checkpoint: otherwise it is where it goes on from.
    ...(stoppedIn && stoppedIn !== fromState ? { stoppedIn } : {}),
    recordLength: saved.recordLength,
    elapsedMs: saved.elapsedMs,
    ...(saved.toolCalling ? { toolCalling: saved.toolCalling } : {}),
    ...(saved.forkOf ? { forkOf: saved.forkOf } : {}),
    ...thisTraceWriter(),
  };
}
