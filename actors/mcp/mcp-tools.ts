import type { Tool as ServerTool } from '@modelcontextprotocol/sdk/types.js';
import type { McpEffect } from '../../lib/tool-effect.js';
import { globMatch } from '../../lib/tool-patterns.js';
import type { McpServerRules } from '../../rules/mcp-servers.js';
import { checkCommand } from '../../tools/permissions/deny-list.js';
import type { AnyTool, ToolOutcome } from '../../tools/types.js';
import { resultText } from './result-text.js';
import type { CallEnd, ServerHandle } from './server-handle.js';
import { toolFingerprint } from './tool-fingerprint.js';
import { nameTools } from './tool-names.js';
import { type CheckedSchema, checkToolSchema, cleanText, SCHEMA_LIMITS } from './tool-schema.js';

/** One server tool offered to the model, with what the runner and the catalogue need to know about it. */
export interface CatalogueEntry {
  server: string;
  tool: string;
  name: string;
  description: string;
  /** Read-only or idempotent by the server's annotations: a call cut by a crash is retried once. */
  retryable: boolean;
  fingerprint: string;
  rein: AnyTool;
}

/** A tool left out, with why, for the trace. */
interface RefusedTool {
  server: string;
  tool: string;
  reason: string;
}

interface ServerTools {
  handle: ServerHandle;
  rules: McpServerRules;
  tools: readonly ServerTool[];
}

/** Kept by the hub: tools refused since their server changed them mid-run (`server\0tool` → why). */
type ChangedTools = ReadonlyMap<string, string>;

/**
 * Connected servers' tools as rein tools named `mcp__<server>__<tool>`:
 * hostile schemas checked and trimmed (refused ones listed with why), the
 * server's `tools` filter applied, names made unique against `taken`.
 * Calls go through the server's handle with its call timeout; the
 * observation is capped like `run` output and the tool runner masks
 * secrets in it like any other result.
 *
 * @example const { entries } = buildCatalogue(servers, ['read_file', 'finish'], new Set()); tools.push(...entries.map((entry) => entry.rein));
 */
export function buildCatalogue(
  servers: readonly ServerTools[],
  taken: readonly string[],
  changed: ChangedTools,
): { entries: CatalogueEntry[]; refused: RefusedTool[] } {
  const refused: RefusedTool[] = [];
  const accepted: { server: ServerTools; tool: ServerTool; checked: Extract<CheckedSchema, { ok: true }> }[] = [];
  for (const server of servers) {
    for (const tool of server.tools) {
      if (typeof tool.name !== 'string' || tool.name === '') continue;
      if (server.rules.tools && !server.rules.tools.some((pattern) => globMatch(pattern, tool.name))) continue;
      const checked = checkToolSchema(tool.inputSchema);
      if (!checked.ok) refused.push({ server: server.handle.name, tool: tool.name.slice(0, 100), reason: checked.reason });
      else accepted.push({ server, tool, checked });
    }
  }
  const names = nameTools(
    accepted.map(({ server, tool }) => ({ server: server.handle.name, tool: tool.name })),
    taken,
  );
  const entries = accepted.map(({ server, tool, checked }, index): CatalogueEntry => {
    const name = names[index]!.name;
    const description =
      cleanText(tool.description ?? tool.title ?? '', SCHEMA_LIMITS.descriptionChars) || `${tool.name} from the ${server.handle.name} MCP server`;
    const annotations = tool.annotations ?? {};
    const retryable = annotations.readOnlyHint === true || annotations.idempotentHint === true;
    const key = `${server.handle.name}\u0000${tool.name}`;
    const rein: AnyTool = {
      name,
      description,
      parameters: checked.parameters,
      async execute(args, ctx) {
        const change = changed.get(key);
        if (change) return failure(server.handle.name, tool.name, 'refused', retryable, `${change}; ${name} is refused for the rest of the run`);
        // The deny list sees what a shell or SQL tool would run: every string argument. A server's own word that a tool
        // only reads (readOnlyHint) skips it only when the user's rules say to believe that server (trustAnnotations).
        const believed = server.rules.trustAnnotations === true && annotations.readOnlyHint === true;
        const prose = proseArgumentsOf(server.rules.proseArguments, tool.name);
        const blocked = believed ? null : deniedArgument(args, ctx.policy.deny, { prose, approvedByPerson: ctx.approvedByPerson === true });
        if (blocked) return failure(server.handle.name, tool.name, 'refused', retryable, blocked);
        const timeoutMs = server.rules.callTimeoutSeconds * 1000;
        let end = await server.handle.call(tool.name, args, timeoutMs, ctx.signal);
        // A read-only or idempotent call is safe to repeat once on the restarted server.
        if (end.kind === 'crashed' && retryable && !ctx.signal.aborted) end = await server.handle.call(tool.name, args, timeoutMs, ctx.signal);
        return outcomeOf(end, server.handle.name, tool.name, retryable, ctx.limits.outputChars);
      },
      // A call a killed run had sent may have taken effect on the server, and nothing there says whether: never sent twice.
      async recover() {
        return failure(
          server.handle.name,
          tool.name,
          'interrupted',
          retryable,
          `this ${name} call was under way when rein was stopped, and it is not sent again (it may have taken effect on the server). Call it again if you still need it.`,
        );
      },
    };
    return { server: server.handle.name, tool: tool.name, name, description, retryable, fingerprint: toolFingerprint(tool), rein };
  });
  return { entries, refused };
}

function outcomeOf(end: CallEnd, server: string, tool: string, readOnly: boolean, cap: number): ToolOutcome {
  if (end.kind !== 'result') {
    const restarted =
      end.kind === 'crashed'
        ? readOnly
          ? ' (retried once after the restart; it crashed again)'
          : '; it is restarting, and the call was not repeated because it may have taken effect'
        : '';
    return failure(server, tool, end.kind === 'failed' ? 'error' : end.kind === 'aborted' ? 'interrupted' : end.kind, readOnly, `${end.message}${restarted}`);
  }
  const text = resultText(end.result, cap);
  if (end.result.isError === true) return failure(server, tool, 'error', readOnly, text);
  return { ok: true, content: text, effect: { kind: 'mcp', server, tool, outcome: 'ok', readOnly } };
}

function failure(server: string, tool: string, outcome: Exclude<McpEffect['outcome'], 'ok'>, readOnly: boolean, message: string): ToolOutcome {
  return { ok: false, content: `Tool error: ${message}`, effect: { kind: 'mcp', server, tool, outcome, readOnly } };
}

/** The deny list's message for the first string in the arguments it blocks, or null; a prose argument is read by the user's patterns only. */
function deniedArgument(args: unknown, extraPatterns: readonly string[], options: { prose: ReadonlySet<string>; approvedByPerson: boolean }): string | null {
  const entries = args && typeof args === 'object' && !Array.isArray(args) ? Object.entries(args) : [['', args] as const];
  for (const [key, value] of entries)
    for (const text of stringsIn(value, 1)) {
      const blocked = checkCommand(text, extraPatterns, { prose: options.prose.has(key), approvedByPerson: options.approvedByPerson });
      if (blocked) return blocked;
    }
  return null;
}

/** The top-level argument names the server's `proseArguments` names for this tool (its own name, globs allowed). */
function proseArgumentsOf(table: Readonly<Record<string, readonly string[]>>, tool: string): ReadonlySet<string> {
  return new Set(Object.entries(table).flatMap(([pattern, names]) => (globMatch(pattern, tool) ? names : [])));
}

function stringsIn(value: unknown, depth: number): string[] {
  if (typeof value === 'string') return [value];
  if (depth > 6 || value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap((child) => stringsIn(child, depth + 1));
}
