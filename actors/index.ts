/**
 * `rein/actors`: What the chart invokes: the model sources, the approver, the summarizer.
 * An entry point of rein's public surface (package.json "exports", docs/architecture.md), used by rein's own packages.
 */
export { writeApprovalAnswer } from './approvals/answer-file.js';
export type { Answer, AnswerSource } from './approvals/approver.js';
export { foreignBodyMessage, speaksApi } from './model/content-type.js';
export { openAIModelSource, resolveEndpoint, scriptedIntake, scriptedModelSource } from './model/model-source.js';
export { call, createScriptedModel, reply, type Script, type ScriptContext, type ScriptedReply } from './model/scripted-model.js';
export { renderCalls, TEXT_CALL_FORMATS, type TextCallFormatName } from './model/text-calls/formats.js';
export { MANGLES, mangleArguments } from './model/text-calls/render.js';
export { extractiveSummary } from './summarizer.js';
