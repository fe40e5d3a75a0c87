/**
 * `rein/lib`: Helpers and formats rein's own packages share: errors, text, hashing, the trace format, secret masking, the user's state dir.
 * An entry point of rein's public surface (package.json "exports", docs/architecture.md), used by rein's own packages.
 */
export { didYouMean } from './did-you-mean.js';
export { JobRefused, ModelEndpointError, QueueConnectionError, ReinError, RunAwaitingApproval, RunInterrupted, UsageError } from './errors.js';
export { gunzipBounded, gunzipBoundedAsync } from './gunzip-bounded.js';
export { inLanes } from './in-lanes.js';
export { packageRoot } from './package-root.js';
export { readRegularFile } from './regular-file.js';
export { redact } from './secrets/redact.js';
export { maskUrlSecrets } from './secrets/url-secrets.js';
export { sha256 } from './sha256.js';
export { snapshotExclusion } from './snapshots/exclusion.js';
export { openObjectStore } from './snapshots/object-store.js';
export { createTreeScanner } from './snapshots/tree-scan.js';
export { stableStringify } from './stable-json.js';
export { RULES_FILE_NAMES, WORKSPACE_REIN_DIR } from './state/harness-files.js';
export { realKey } from './state/state-records.js';
export { userStateDir } from './state/user-state-dir.js';
export { jsonSyntaxError } from './syntax-error.js';
export { escapeControl, indentedLines, showWhole, stripControl } from './terminal-text.js';
export { isToolAllowed } from './tool-patterns.js';
export { writerGone } from './trace/trace-writer.js';
export type { CallUsage, Usage } from './usage.js';
export { parseSchemasWithoutCompiling } from './zod-config.js';
export { formatZodError } from './zod-error.js';
