/**
 * `rein/context`: The context manager: the working view, elision, compaction (the benchmarks measure it directly).
 * An entry point of rein's public surface (package.json "exports", docs/architecture.md), used by rein's own packages.
 */
export { type ContextDecision, type ContextRules, MAX_SUMMARY_FAILURES, manageContext, type SummaryRange, summaryRange } from './context-manager.js';
export { type ContextState, initialContextState, SUMMARY_HEADER } from './context-state.js';
export { type CapSteps, capAt, sameCaps } from './elision.js';
export { type ChatMessage, totalChars } from './messages.js';
export { type View, ViewBuilder } from './view-builder.js';
