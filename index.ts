/**
 * rein's library API: build the harness statechart from rules, run it, and
 * extend it with guards and tools. The test kit is `rein/testing`.
 */
export { createHarnessMachine, type HarnessMachine, type HarnessOptions } from './machines/harness-machine.js';
export { builtInGuards, type GuardRegistry, type HarnessGuard, type GuardParams } from './machines/guards.js';
export { builtInActions, type RuleAction, type RuleActionEffect, type RuleActionRegistry } from './machines/rule-actions.js';
export type { EndStatus, HarnessContext, HarnessInput, HarnessOutput, Usage } from './machines/types.js';
export { defaultRules, rulesSchema, type Rules, type RulesInput } from './rules/schema.js';
export { loadRules, type LoadedRules } from './rules/load.js';
export { PRESETS, findPreset, type Preset } from './rules/presets.js';
export { startRun, resumeRun, type ModelSource, type RunHandle, type RunOptions } from './run/session.js';
export { defaultTools, findTool, toolSchemas } from './tools/index.js';
export type { AnyTool, Tool, ToolContext, ToolEffect, ToolOutcome } from './tools/types.js';
export { openEndpoint, createOpenAIModel } from './actors/openai-model.js';
export { createScriptedModel, reply, call } from './actors/scripted-model.js';
