import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type Tool as ServerTool, ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { whilePending } from './request-signal.js';

/** Most tools read from one server, a bound on a server that never stops paging with new cursors (each page's cursor differs). */
const MAX_SERVER_TOOLS = 10_000;

/** A tool the server listed that rein cannot use, or a listing that stopped early, with why. */
export interface DroppedTool {
  tool: string;
  reason: string;
}

/** A page as it comes: tools are checked one by one, so one bad tool never loses the others. */
const page = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().nullish() });

/**
 * Lists a server's tools page by page (`tools/list` with `params.cursor`), as the MCP specification's pagination
 * says: the cursor is opaque (an empty string is a cursor too), a missing one ends the list. A server that sends
 * a cursor it sent before would loop forever, so the list stops there. Each tool is checked against the protocol's
 * own Tool schema: one that fails is dropped with why, the rest are kept.
 *
 * @example const { tools, dropped } = await listServerTools(client, { signal, timeout: 30_000 });
 */
export async function listServerTools(
  client: Client,
  options: { signal?: AbortSignal; timeout: number },
): Promise<{ tools: ServerTool[]; dropped: DroppedTool[] }> {
  const tools: ServerTool[] = [];
  const dropped: DroppedTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const params = cursor === undefined ? {} : { cursor };
    const listed = await whilePending(options.signal, (signal) =>
      client.request({ method: 'tools/list', params }, page, { ...(signal ? { signal } : {}), timeout: options.timeout }),
    );
    for (const raw of listed.tools) {
      const checked = ToolSchema.safeParse(raw);
      if (checked.success) tools.push(checked.data);
      else dropped.push({ tool: nameOf(raw), reason: `not a valid MCP tool (${describeIssue(checked.error.issues[0])}); the server's other tools are kept` });
    }
    const next = listed.nextCursor;
    if (next === undefined || next === null) break;
    if (seen.has(next)) {
      dropped.push({ tool: '(tools/list)', reason: `the server sent the cursor ${JSON.stringify(next.slice(0, 100))} a second time; the list stops there` });
      break;
    }
    if (tools.length >= MAX_SERVER_TOOLS) {
      dropped.push({ tool: '(tools/list)', reason: `more than ${MAX_SERVER_TOOLS} tools; the list stops there` });
      break;
    }
    seen.add(next);
    cursor = next;
  }
  return { tools, dropped };
}

function nameOf(raw: unknown): string {
  const name = raw && typeof raw === 'object' ? (raw as { name?: unknown }).name : undefined;
  return typeof name === 'string' && name !== '' ? name.slice(0, 100) : '(a tool without a name)';
}

function describeIssue(issue: { path: PropertyKey[]; message: string } | undefined): string {
  if (!issue) return 'invalid';
  const where = issue.path.map(String).join('.');
  return where ? `${where}: ${issue.message}` : issue.message;
}
