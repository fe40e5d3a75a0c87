/**
 * `rein/sandbox`: The sandbox: the run's sandbox, one-off sandboxed commands, the environment allow-list, limits.
 * An entry point of rein's public surface (package.json "exports", docs/architecture.md), used by rein's own packages.
 */
export { buildSandboxArgv, resolveSandbox } from './launch/bubblewrap.js';
export { runColdCommand } from './launch/cold-command.js';
export { WORKER_KILL_GRACE_S, WORKER_STOP_GRACE_MS, WORKER_TERM_GRACE_MS } from './lifetime/kill-timings.js';
export { runInProcessGroup } from './lifetime/process-group.js';
export { buildCommandEnv } from './plan/environment.js';
export { planVisibility } from './plan/visibility.js';
export { createRunSandbox, type RunSandbox } from './run-sandbox.js';
