import fs from 'node:fs';
import path from 'node:path';
import type { Tool as ServerTool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerEvent, McpToolsEvent } from '../../lib/trace/trace-events.js';
import type { CommandPolicy } from '../../rules/command-policy.js';
import type { McpServerRules } from '../../rules/mcp-servers.js';
import { toolSchemasJson } from '../../tools/tool-schemas.js';
import type { AnyTool } from '../../tools/types.js';
import { createFindTools, FIND_TOOLS } from './find-tools.js';
import { buildCatalogue, type CatalogueEntry } from './mcp-tools.js';
import { ServerHandle } from './server-handle.js';
import { toolFingerprint } from './tool-fingerprint.js';

/** A line for the run's trace. */
export type McpNote = (Omit<McpServerEvent, 'kind'> & { kind: 'mcp_server' }) | (Omit<McpToolsEvent, 'kind'> & { kind: 'mcp_tools' });

interface McpHubOptions {
  servers: Record<string, McpServerRules>;
  /** Real workspace root (stdio servers start there and see it as commands do). */
  root: string;
  policy: CommandPolicy;
  env: NodeJS.ProcessEnv;
  /** Servers' stderr logs (`mcp-<server>.stderr.log`) and the tools find_tools appended go here. */
  runDir: string;
  protectedFiles?: readonly string[];
}

/** How the run sends MCP definitions: all of them, or find_tools when they would take more than `share` of the window. */
interface ToolBudget {
  windowTokens: number;
  charsPerToken: number;
  share: number;
}

const FOUND_FILE = 'mcp-found.json';

/**
 * The run's MCP servers: started together, each a lifecycle actor
 * (actors/mcp/server-machine.ts), their tools turned into rein tools. What happens
 * is buffered until `attach` gives it the trace. `close` ends every server
 * with the run.
 *
 * @example const hub = await openMcpHub({ servers: rules.mcp.servers, root, policy, env: process.env, runDir }); startRun({ ..., mcp: hub });
 */
export async function openMcpHub(options: McpHubOptions): Promise<McpHub> {
  const hub = new McpHub(options);
  await Promise.all(hub.handles.map((handle) => handle.settled));
  return hub;
}

export class McpHub {
  readonly handles: ServerHandle[];
  private sink: ((note: McpNote) => void) | null = null;
  private readonly buffered: McpNote[] = [];
  private entries: CatalogueEntry[] | null = null;
  private readonly sent = new Set<string>();
  private readonly changed = new Map<string, string>();
  private readonly listeners: ((tools: AnyTool[]) => void)[] = [];

  constructor(private readonly options: McpHubOptions) {
    fs.mkdirSync(options.runDir, { recursive: true });
    this.handles = Object.entries(options.servers).map(
      ([name, rules]) =>
        new ServerHandle(
          name,
          {
            name,
            rules,
            root: options.root,
            policy: options.policy,
            env: options.env,
            protectedFiles: options.protectedFiles,
            stderrPath: path.join(options.runDir, `mcp-${name}.stderr.log`),
          },
          (note) => this.emit({ kind: 'mcp_server', ...note }),
          (tools) => this.compareTools(name, tools),
        ),
    );
  }

  /** Trace lines from now on, and those written before the trace was open. */
  attach(sink: (note: McpNote) => void): void {
    this.sink = sink;
    for (const note of this.buffered.splice(0)) sink(note);
  }

  /**
   * The tools to add to the run's list, after `taken` (rein's own). When their
   * definitions fit in `budget`, all of them; else `find_tools` and the tools
   * an earlier process of this run had found, in the same order.
   */
  tools(taken: readonly string[], budget: ToolBudget): AnyTool[] {
    const servers = this.handles.map((handle) => ({ handle, rules: this.options.servers[handle.name]!, tools: handle.firstTools }));
    const { entries, refused: unsafe } = buildCatalogue(servers, [...taken, FIND_TOOLS], this.changed);
    const refused = [...this.handles.flatMap((handle) => handle.firstDropped.map((dropped) => ({ server: handle.name, ...dropped }))), ...unsafe];
    this.entries = entries;
    if (refused.length > 0) this.emit({ kind: 'mcp_tools', change: 'refused', tools: refused });
    const catalogueChars = toolSchemasJson(entries.map((entry) => entry.rein)).length;
    const search = catalogueChars / budget.charsPerToken > budget.share * budget.windowTokens;
    const offered = search ? this.previouslyFound(entries) : entries;
    for (const entry of offered) this.sent.add(entry.name);
    this.emit({ kind: 'mcp_tools', change: 'offered', mode: search ? 'search' : 'all', catalogueChars, tools: offered.map(describe) });
    if (!search) return offered.map((entry) => entry.rein);
    const findTools = createFindTools(
      () => this.entries ?? [],
      (found) => this.append(found),
    );
    return [findTools, ...offered.map((entry) => entry.rein)];
  }

  /** Every server tool the run can reach (sent, or found on demand), after `tools()` has built the catalogue. */
  catalogue(): readonly { server: string; tool: string; name: string }[] {
    return (this.entries ?? []).map(describe);
  }

  /** Called with tools find_tools appends, to add them to the run's tool list and schemas. */
  onAppend(listener: (tools: AnyTool[]) => void): void {
    this.listeners.push(listener);
  }

  /** Every server and its state, for `rein rules tools` and the start message. */
  states(): { server: string; state: string; problem: string | null }[] {
    return this.handles.map((handle) => ({ server: handle.name, state: handle.state, problem: handle.problem }));
  }

  async close(): Promise<void> {
    await Promise.all(this.handles.map((handle) => handle.close()));
  }

  private append(found: CatalogueEntry[]): CatalogueEntry[] {
    const fresh = found.filter((entry) => !this.sent.has(entry.name));
    if (fresh.length === 0) return [];
    for (const entry of fresh) this.sent.add(entry.name);
    for (const listener of this.listeners) listener(fresh.map((entry) => entry.rein));
    this.emit({ kind: 'mcp_tools', change: 'found', tools: fresh.map(describe) });
    const file = path.join(this.options.runDir, FOUND_FILE);
    const before = readFound(file);
    fs.writeFileSync(file, JSON.stringify([...before, ...fresh.map((entry) => entry.name)]));
    return fresh;
  }

  private previouslyFound(entries: CatalogueEntry[]): CatalogueEntry[] {
    const byName = new Map(entries.map((entry) => [entry.name, entry]));
    return readFound(path.join(this.options.runDir, FOUND_FILE)).flatMap((name) => byName.get(name) ?? []);
  }

  /** A restarted server's tools, or a list it changed while connected, against the ones the run started with. */
  private compareTools(server: string, tools: ServerTool[]): void {
    const now = new Map(tools.map((tool) => [tool.name, toolFingerprint(tool)]));
    const changed = (this.entries ?? []).filter((entry) => entry.server === server && now.get(entry.tool) !== entry.fingerprint);
    if (changed.length === 0) return;
    const refuse = this.options.servers[server]?.onToolsChanged !== 'accept';
    const why = (entry: CatalogueEntry) =>
      now.has(entry.tool) ? `the server changed the definition of ${entry.tool} during the run` : `the server no longer lists ${entry.tool}`;
    for (const entry of changed) if (refuse || !now.has(entry.tool)) this.changed.set(`${server}\u0000${entry.tool}`, why(entry));
    this.emit({
      kind: 'mcp_tools',
      change: 'changed',
      tools: changed.map((entry) => ({ ...describe(entry), reason: `${why(entry)}: ${refuse || !now.has(entry.tool) ? 'refused' : 'accepted'}` })),
    });
  }

  private emit(note: McpNote): void {
    if (this.sink) this.sink(note);
    else this.buffered.push(note);
  }
}

function describe(entry: CatalogueEntry): { server: string; tool: string; name: string } {
  return { server: entry.server, tool: entry.tool, name: entry.name };
}

function readFound(file: string): string[] {
  try {
    const value = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    return Array.isArray(value) ? value.filter((name): name is string => typeof name === 'string') : [];
  } catch {
    return [];
  }
}
