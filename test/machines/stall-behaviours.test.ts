import { describe, expect, it } from 'vitest';
import { LOOP_BEHAVIOURS, PROGRESS_BEHAVIOURS, runBehaviour, seedFirstNudge } from '../../dev/bench/stall-behaviours.js';

describe('the stall detector on labelled behaviours (the set `npm run bench` reports)', () => {
  it.each(PROGRESS_BEHAVIOURS.map((behaviour) => [behaviour.name, behaviour] as const))('progress is never stopped: %s finishes', (_name, behaviour) => {
    const outcome = runBehaviour(behaviour);
    expect(outcome.status).toBe('done');
  });

  it.each(LOOP_BEHAVIOURS.map((behaviour) => [behaviour.name, behaviour] as const))(
    'a loop is ended, first nudged no later than the seed would: %s',
    (_name, behaviour) => {
      const outcome = runBehaviour(behaviour);
      expect(outcome.status).toBe('stalled');
      const seed = seedFirstNudge(behaviour);
      expect(outcome.firstNudge).not.toBeNull();
      if (seed !== null) expect(outcome.firstNudge!).toBeLessThanOrEqual(seed);
    },
  );

  it('with stall.onPersist "nudge" a loop is nudged on and never ended (the seed\'s policy)', () => {
    const outcome = runBehaviour(LOOP_BEHAVIOURS[0]!, { stall: { onPersist: 'nudge' } });
    expect(outcome.status).toBe('running');
    expect(outcome.nudges.length).toBeGreaterThan(3);
  });
});
