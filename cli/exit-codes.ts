import type { EndStatus } from 'rein/formats';

/** 0 done; 1 ended without finishing; 2 bad usage or config; 3 the model endpoint failed; 4 crashed (a bug, or rules-file code that threw); 5 waiting for an approval (headless; `rein approve`, then `rein resume`); 130 interrupted (Ctrl+C); 143 stopped by SIGTERM. */
export const EXIT = { done: 0, unfinished: 1, usage: 2, endpoint: 3, crashed: 4, awaitingApproval: 5, interrupted: 130, terminated: 143 } as const;

export function exitCodeFor(status: EndStatus): number {
  if (status === 'done') return EXIT.done;
  if (status === 'failed') return EXIT.endpoint;
  return EXIT.unfinished;
}
