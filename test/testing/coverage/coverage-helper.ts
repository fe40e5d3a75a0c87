import { rulesSchema } from '../../../rules/schema.js';
// Through the public test kit, as a user's own coverage test would import it.
import { confirmWithScriptedActors, coverTransitions, createHarnessMachine, formatCoverage } from '../../../testing/index.js';

/** Explores the machine built from `rulesInput`: the report, its text, and a replay of every witness with scripted actors. */
export function coverage(rulesInput: unknown, title: string) {
  const rules = rulesSchema.parse(rulesInput);
  const machine = createHarnessMachine(rules);
  const report = coverTransitions(machine, rules);
  return { report, text: formatCoverage(report, title), replay: () => confirmWithScriptedActors(machine, rules, report) };
}
