/**
 * rein's library API: build the harness statechart from rules, run it, and
 * extend it with guards, actions and tools. The test kit is `rein/testing`.
 */
export { createHarnessMachine, type HarnessMachine, type HarnessOptions } from './machines/harness-machine.js';
export { BUILT_IN_GUARDS, GUARD_CATALOGUE, type GuardSpec } from './machines/guards/catalogue.js';
export type { GuardView } from './machines/guards/guard-view.js';
export type { GuardDefinition, GuardFunction, GuardParams, GuardRegistry } from './machines/guards/registry.js';
export { builtInActions, type RuleAction, type RuleActionEffect, type RuleActionRegistry } from './machines/rule-actions.js';
export type { HarnessContext, HarnessInput, HarnessOutput } from './machines/types.js';
export type { EndStatus, TraceEvent, TraceLine, TraceRecord } from './lib/trace-events.js';
export { isEvent } from './lib/trace-events.js';
export type { Usage } from './lib/usage.js';
export { defaultRules, rulesSchema, type Rules, type RulesInput } from './rules/schema.js';
export { STALL_RULES, type StallRuleName } from './rules/stall-rules.js';
export { loadRules, type LoadedRules } from './config/load-rules.js';
export { PRESETS, findPreset, type Preset } from './rules/presets.js';
export { startRun, resumeRun, type RunHandle, type RunOptions } from './run/start-run.js';
export { readRunMeta, RUN_FILES, type RunMeta } from './run/run-dir.js';
export { openAIModelSource, resolveEndpoint, scriptedModelSource, type ModelSource } from './actors/model-source.js';
export { defaultTools, findTool, toolSchemas } from './tools/index.js';
export type { AnyTool, Tool, ToolContext, ToolEffect, ToolOutcome } from './tools/types.js';
export { openEndpoint, createOpenAIModel } from './actors/openai-model.js';
export { createScriptedModel, reply, call } from './actors/scripted-model.js';
