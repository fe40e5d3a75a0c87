/**
 * `rein/machines`: The statechart: the harness machine, its introspection (states, transitions, guard labels) and its types.
 * An entry point of rein's public surface (package.json "exports", docs/architecture.md), used by rein's own packages.
 */
export type { ModelInput } from './actor-contracts.js';
export { costOf } from './budgets.js';
export { GUARD_CATALOGUE, type GuardSpec } from './guards/catalogue.js';
export { type GuardRegistry, registerGuards } from './guards/registry.js';
export { createHarnessMachine, type HarnessMachine, type HarnessOptions } from './harness-machine.js';
export { formatInertRules, type InertRule, inertRules } from './inert-rules.js';
export { guardName, listTransitions, stateLabel } from './introspection.js';
export { normalizeCalls } from './turn-cycle.js';
export type { EndStatus, HarnessOutput, ModelReply } from './types.js';
