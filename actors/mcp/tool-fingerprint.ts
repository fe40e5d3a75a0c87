import { createHash } from 'node:crypto';
import type { Tool as ServerTool } from '@modelcontextprotocol/sdk/types.js';
import { stableStringify } from '../../lib/stable-json.js';

/**
 * A tool definition's fingerprint: name, description, input schema and
 * annotations, with keys sorted. A server whose tool changes mid-run (a
 * restart brings a new version, or a "rug pull") is caught by comparing it.
 *
 * @example toolFingerprint({ name: 'echo', inputSchema: { type: 'object' } }) // '3f2a…' (16 hex digits)
 */
export function toolFingerprint(tool: ServerTool): string {
  const defined = { name: tool.name, description: tool.description ?? null, inputSchema: tool.inputSchema ?? null, annotations: tool.annotations ?? null };
  return createHash('sha256').update(stableStringify(defined)).digest('hex').slice(0, 16);
}
