/**
 * rein's library API: build the harness statechart from rules, run it, and
 * extend it with guards, actions and tools. The test kit is `rein/testing`.
 */

export { type ModelSource, openAIModelSource, resolveEndpoint, scriptedModelSource } from './actors/model/model-source.js';
export { createOpenAIModel, openEndpoint } from './actors/model/openai-model.js';
export { call, createScriptedModel, reply, type Script } from './actors/model/scripted-model.js';
export type { EndStatus, TraceEvent, TraceLine, TraceRecord } from './lib/trace/trace-events.js';
export { isEvent } from './lib/trace/trace-events.js';
export type { Usage } from './lib/usage.js';
export { BUILT_IN_GUARDS, GUARD_CATALOGUE, type GuardSpec } from './machines/guards/catalogue.js';
export type { GuardView } from './machines/guards/guard-view.js';
export type { GuardDefinition, GuardFunction, GuardParams, GuardRegistry, GuardResult } from './machines/guards/registry.js';
export { createHarnessMachine, type HarnessMachine, type HarnessOptions } from './machines/harness-machine.js';
export { builtInActions, type RuleAction, type RuleActionEffect, type RuleActionRegistry } from './machines/rule-actions.js';
export type { HarnessContext, HarnessInput, HarnessOutput } from './machines/types.js';
export { findPreset, PRESETS, type Preset } from './rules/presets.js';
export { defaultRules, type Rules, type RulesInput, rulesSchema } from './rules/schema.js';
export { STALL_RULES, type StallRuleName } from './rules/stall-rules.js';
export { RUN_FILES, type RunMeta, readRunMeta } from './run/record/run-dir.js';
export { type LoadedRules, loadRules } from './run/rules-files/load-rules.js';
export { type RunHandle, type RunOptions, resumeRun, startRun } from './run/start-run.js';
export { defaultTools, findTool, toolRegistry, toolSchemas } from './tools/index.js';
export { type CommandRun, runCommand } from './tools/run-command.js';
export type { AnyTool, Tool, ToolContext, ToolEffect, ToolOutcome } from './tools/types.js';
