/**
 * rein's test kit: unit-test harness transitions and whole runs without
 * real models, processes or network.
 *
 * - `probeHarness`: pure transitions from any state (`transition()` under the hood).
 * - `runScripted`: a full run with a scripted model and real tools on a temp dir.
 * - `replayRun`, `createReplayer`: recorded runs of any agent, open loop through the real machine (no files, no processes).
 * - `reply`, `call`: scripted model replies; `edited`, `ran`, `read`, …: tool results.
 * - `coverTransitions`: model-based path coverage of a machine built from rules;
 *   `confirmWithScriptedActors` replays every covered path with scripted actors;
 *   `assertFullCoverage` does both and rejects naming every untaken transition,
 *   unreachable state and path that does not replay.
 */

export {
  call,
  createScriptedModel,
  mangledCall,
  reply,
  type Script,
  type ScriptedCall,
  type ScriptedReply,
  textReply,
} from '../actors/model/scripted-model.js';
export { renderCalls, TEXT_CALL_FORMAT_NAMES, TEXT_CALL_FORMATS, type TextCallFormatName } from '../actors/model/text-calls/formats.js';
export { MANGLES, type Mangle } from '../actors/model/text-calls/render.js';
export { BUILT_IN_GUARDS } from '../machines/guards/catalogue.js';
export type { GuardView } from '../machines/guards/guard-view.js';
export type { GuardDefinition, GuardFunction, GuardParams, GuardRegistry } from '../machines/guards/registry.js';
export { createHarnessMachine } from '../machines/harness-machine.js';
export { builtInActions, type RuleAction, type RuleActionEffect, type RuleActionRegistry } from '../machines/rule-actions.js';
export { findPreset, PRESETS, type Preset } from '../rules/presets.js';
export { defaultRules, type Rules, type RulesInput, rulesSchema } from '../rules/schema.js';
export { type LoadedRules, loadRules } from '../run/rules-files/load-rules.js';
export { defaultTools } from '../tools/index.js';
export { assertFullCoverage, type CoverageCheck, checkCoverage } from './coverage/check.js';
export { type CoverageReport, coverTransitions, formatCoverage, listTransitions, type TransitionInfo, type Witness } from './coverage/explore.js';
export { confirmWithScriptedActors, replayWithScriptedActors } from './coverage/replay.js';
export { type OpenAIStub, type StubAnswer, type StubRequest, startOpenAIStub } from './openai-stub.js';
export { type ProbeStep, probeHarness } from './probe.js';
export type { RecordedRun, RecordedStep, RecordedTool } from './recorded-run.js';
export {
  createReplayer,
  LEARNING_NEW,
  LEARNING_WINDOW,
  type ReplayNudge,
  type ReplayOptions,
  type ReplayResult,
  type ReplayStep,
  replayRun,
} from './replay-run.js';
export { blocked, denied, edited, interrupted, type ResultSpec, ran, read, rejectedEdit, searched, todo, toolError } from './results.js';
export { runScripted, type ScriptedRunOptions, type ScriptedRunResult } from './run-scripted.js';
export { makeTempDir, removeTempDirs } from './temp-dir.js';
