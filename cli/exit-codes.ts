import type { HarnessOutput } from 'rein/machines';

/**
 * Who ended the run, as a number a CI wrapper can branch on: 0 done; 1 ended without finishing (a budget, a stall or
 * an exit rule to one of those ends); 2 bad usage or rules; 3 the model endpoint failed; 4 crashed (a bug, or
 * rules-file code that threw); 5 waiting for an approval (headless; `rein approve`, then `rein resume`); 6 an exit
 * rule ended the run as failed (a policy decision, not a fault); 130 interrupted (Ctrl+C); 143 stopped by SIGTERM.
 */
export const EXIT = {
  done: 0,
  unfinished: 1,
  usage: 2,
  endpoint: 3,
  crashed: 4,
  awaitingApproval: 5,
  failedByRule: 6,
  interrupted: 130,
  terminated: 143,
} as const;

/** The exit code of a run that reached an end state. */
export function exitCodeFor(output: Pick<HarnessOutput, 'status' | 'endedBy'>): number {
  if (output.status === 'done') return EXIT.done;
  if (output.status !== 'failed') return EXIT.unfinished;
  if (output.endedBy === 'rule') return EXIT.failedByRule;
  // A state saved before the cause was recorded ended failed only through the endpoint or the harness: as before.
  return output.endedBy === 'harness' ? EXIT.crashed : EXIT.endpoint;
}

/** The exit codes as `rein --help` lists them (the table in docs/endpoints.md says the same). */
export const EXIT_CODES_HELP = `Exit codes: 0 done, 1 ended without finishing (a budget, a stall, or a rule ending it there), 2 bad usage or rules,
3 model endpoint failed, 4 crashed (a bug, or a guard, tool or action from a rules file threw),
5 waiting for an approval (rein approve, then rein resume), 6 a rule ended the run as failed ("to": "failed"),
130 interrupted (Ctrl+C), 143 stopped by SIGTERM.`;
