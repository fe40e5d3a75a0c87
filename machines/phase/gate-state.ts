import type { Condition, Phase, Rules } from '../../rules/schema.js';
import { GATE_GUARD, gateCondition, refusalParams } from '../gate.js';
import { harnessSetup } from '../harness-setup.js';
import { testsCanPassBy } from '../phase-exits.js';
import { conditionGuard } from './exits.js';
import { at, named, type PhasePlan } from './plan.js';

/** `gate`, in a phase that allows finish: the verification gate decides the finish. */
export function gateStates(plan: PhasePlan) {
  return { gate: gateState(plan) };
}

function gateState(plan: PhasePlan) {
  const { phase, rules, naming } = plan;
  if (!rules.verification.gate) {
    return harnessSetup.createStateConfig({
      description: 'Verification gate off: finish is accepted at once.',
      always: { target: at('done'), actions: { type: 'acceptFinish', params: { gate: false } } },
    });
  }
  const refusal = refusalParams(rules, naming.guard);
  if (!gateCanAccept(phase, rules)) {
    return harnessSetup.createStateConfig({
      description: 'The verification gate: no test can have run by the time this phase is active, so finish is refused.',
      always: { target: 'afterTools', actions: { type: 'refuseFinish', params: refusal } },
    });
  }
  return harnessSetup.createStateConfig({
    description: rules.verification.when
      ? "The verification gate: finish only when the gate's condition (verification.when) holds."
      : 'The verification gate: finish only after the test command (and any other check) has passed since the last edit.',
    always: [
      { guard: named(conditionGuard(gateCondition(rules), naming)), target: at('done'), actions: { type: 'acceptFinish', params: { gate: true } } },
      { target: 'afterTools', actions: { type: 'refuseFinish', params: refusal } },
    ],
  });
}

/** Whether the gate's condition can hold in this phase: the test guard only once a test can have passed by then (other facts are the run's). */
function gateCanAccept(phase: Phase, rules: Rules): boolean {
  const canHold = (condition: Condition): boolean => {
    if (condition.all) return condition.all.every(canHold);
    if (condition.any) return condition.any.some(canHold);
    if (condition.not) return true;
    return condition.guard !== GATE_GUARD || testsCanPassBy(phase, rules);
  };
  return canHold(gateCondition(rules));
}
