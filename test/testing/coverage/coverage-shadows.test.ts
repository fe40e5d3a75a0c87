import { describe, expect, it } from 'vitest';
import { shadowReason } from '../../../testing/coverage/shadows.js';
import { createHarnessMachine, listTransitions, rulesSchema } from '../../../testing/index.js';

// Coverage says why a transition is never taken when an earlier rule of its list always wins (testing/coverage/shadows.ts;
// checkCoverage puts the reason beside the uncovered transition).

const exitsOf = (exits: unknown[]) => {
  const rules = rulesSchema.parse({ phases: { plan: { exitsPrepend: exits } } });
  const transitions = listTransitions(createHarnessMachine(rules));
  return (key: string) => shadowReason(transitions.find((info) => info.key === key)!, transitions);
};

describe('coverage explains hidden transitions', () => {
  it('an exit after one on the same count with a threshold no higher is shadowed by it; with a higher one it is not', () => {
    const hidden = exitsOf([
      { guard: 'phaseSteps', min: 2, to: 'build' },
      { guard: 'phaseSteps', min: 3, to: 'verify' },
    ]);
    expect(hidden('plan.route --always [phaseSteps(min=3)]--> verify.observe')).toBe(
      'shadowed by plan.route --always [phaseSteps(min=2)]--> build.observe: the same count with a threshold no higher, tried first',
    );
    const visible = exitsOf([
      { guard: 'phaseSteps', min: 3, to: 'verify' },
      { guard: 'phaseSteps', min: 2, to: 'build' },
    ]);
    expect(visible('plan.route --always [phaseSteps(min=2)]--> build.observe')).toBeNull();
  });

  it('an exit after an unconditional one, or after the same condition, is shadowed', () => {
    const afterAlways = exitsOf([
      { guard: 'always', to: 'build' },
      { guard: 'todoWritten', to: 'verify' },
    ]);
    expect(afterAlways('plan.route --always [todoWritten]--> verify.observe')).toMatch(/^shadowed by plan\.route --always \[always\]--> build\.observe/);
    const same = exitsOf([{ guard: 'todoWritten', to: 'verify' }]);
    expect(same('plan.route --always [todoWritten]--> build.observe')).toBe(
      'shadowed by plan.route --always [todoWritten]--> verify.observe: the same condition, tried first',
    );
  });
});
