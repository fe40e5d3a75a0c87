/**
 * What counts as progress (machines/stall/progress.ts computes them):
 * - `newInfo`: an observation whose content the run has not seen before
 *   (volatile parts such as timings and timestamps do not make it new);
 * - `newFileState`: an applied edit that leaves a file in a state it has not
 *   been in before in this run;
 * - `todoChange`: a todo item added or ticked off;
 * - `testChange`: a verification run whose result differs from the last one
 *   of the same command (pass/fail, fewer failures, a different failing set).
 */
export const PROGRESS_KINDS = ['newInfo', 'newFileState', 'todoChange', 'testChange'] as const;
export type ProgressKind = (typeof PROGRESS_KINDS)[number];
