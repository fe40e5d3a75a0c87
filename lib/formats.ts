/**
 * `rein/formats`: the data formats rein writes and its readers share, as types and pure functions with no Node.js
 * import, so a browser page can bundle them: the trace's events (trace/trace-events.ts), what a tool call produced
 * (tool-effect.ts), usage figures, the kinds of progress, and how a named guard reads on the chart (guard-labels.ts).
 * An entry point of rein's public surface (package.json "exports", docs/architecture.md).
 */
export { COMBINATOR_NAMES, namedGuardLabel } from './guard-labels.js';
export { PROGRESS_KINDS, type ProgressKind } from './progress-kinds.js';
export * from './tool-effect.js';
export * from './trace/trace-events.js';
export type { CallUsage, Usage } from './usage.js';
