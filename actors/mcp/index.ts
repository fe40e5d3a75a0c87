/**
 * `rein/mcp`: MCP servers: the hub that starts and governs them. Loaded only when a run has servers (it brings the MCP SDK).
 * An entry point of rein's public surface (package.json "exports", docs/architecture.md), used by rein's own packages.
 */
export { createFindTools } from './find-tools.js';
export { buildCatalogue } from './mcp-tools.js';
export type { ServerHandle } from './server-handle.js';
export { serverMachine } from './server-machine.js';
