import { stableStringify } from 'rein/lib';
import { LEARNING_NEW, LEARNING_WINDOW, type RecordedRun } from 'rein/testing';

/**
 * The seed's reference harness's three rules on a recorded run (the same
 * rules bench/stall-behaviours.ts applies to the labelled behaviours): the
 * same action and result 3 times in a row; 5 applied edits to one file; 8
 * reads or searches without an edit. It nudges and never ends a run. Learning
 * is judged as in the replay: the last 8 observations, new by their text.
 */
export function seedNudges(run: RecordedRun): Array<{ index: number; rule: string; learning: boolean }> {
  const nudges: Array<{ index: number; rule: string; learning: boolean }> = [];
  const history: string[] = [];
  const edits = new Map<string, number>();
  const seen = new Set<string>();
  const fresh: boolean[] = [];
  let readsSinceEdit = 0;
  run.steps.forEach((step, index) => {
    if (step.tool === 'none') return;
    const observed = `${step.tool}\u0000${step.output}`;
    fresh.push(!seen.has(observed));
    seen.add(observed);
    let rule: string | null = null;
    history.push(`${step.tool}${stableStringify(step.args)}\u0000${step.output.slice(0, 500)}`);
    if (step.tool === 'edit_file' && step.edit?.applied !== false) {
      const path = String(step.args.path ?? '');
      const count = (edits.get(path) ?? 0) + 1;
      edits.set(path, count >= 5 ? 0 : count);
      readsSinceEdit = 0;
      if (count >= 5) rule = 'fiveEdits';
    }
    if (step.tool === 'read_file' || step.tool === 'grep') {
      readsSinceEdit += 1;
      if (readsSinceEdit >= 8) {
        readsSinceEdit = 0;
        rule = 'eightReads';
      }
    }
    const last = history.slice(-3);
    if (!rule && last.length === 3 && new Set(last).size === 1) rule = 'sameActionThrice';
    if (rule) nudges.push({ index, rule, learning: fresh.slice(-LEARNING_WINDOW).filter(Boolean).length >= LEARNING_NEW });
  });
  return nudges;
}

/** The longest run of reads and searches with no applied edit between them, per run: what an exploration cap must stay above. */
export function longestExploration(run: RecordedRun): number {
  let longest = 0;
  let current = 0;
  for (const step of run.steps) {
    if (step.tool === 'edit_file' && step.edit?.applied !== false) current = 0;
    if (step.tool === 'read_file' || step.tool === 'grep') longest = Math.max(longest, ++current);
  }
  return longest;
}
