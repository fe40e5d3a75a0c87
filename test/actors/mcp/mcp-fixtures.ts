import fs from 'node:fs';
import path from 'node:path';
import { type McpHub, type McpNote, openMcpHub } from '../../../actors/mcp/hub.js';
import type { CommandPolicy } from '../../../rules/command-policy.js';
import { type McpServerRules, mcpServerSchema } from '../../../rules/mcp-servers.js';
import type { AnyTool } from '../../../tools/types.js';
import { defaultPolicy, makeContext, makeTempDir } from '../../helpers/workspace.js';

const modules = path.resolve(import.meta.dirname, '../../../node_modules/@modelcontextprotocol');
/** The reference servers from npm, run with node (no npx). */
export const EVERYTHING = path.join(modules, 'server-everything/dist/index.js');
export const FILESYSTEM = path.join(modules, 'server-filesystem/dist/index.js');
export const MEMORY = path.join(modules, 'server-memory/dist/index.js');

/** A stdio server's rules with the defaults filled in. */
export function stdio(args: string[], extra: Record<string, unknown> = {}, command = process.execPath): McpServerRules {
  return mcpServerSchema.parse({ command, args, ...extra });
}

export interface OpenedHub {
  hub: McpHub;
  root: string;
  runDir: string;
  notes: McpNote[];
  tools: AnyTool[];
  call(name: string, args: Record<string, unknown>, signal?: AbortSignal): ReturnType<AnyTool['execute']>;
}

/** Opens a hub on a fresh workspace and run directory, attached to an array of notes. */
export async function openHub(
  servers: Record<string, McpServerRules>,
  policy: Partial<CommandPolicy> = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<OpenedHub> {
  const root = makeTempDir('rein-mcp-ws-');
  const runDir = makeTempDir('rein-mcp-run-');
  const hub = await openMcpHub({ servers, root, policy: { ...defaultPolicy, ...policy }, env, runDir });
  const notes: McpNote[] = [];
  hub.attach((note) => notes.push(note));
  const tools = hub.tools(['read_file', 'finish'], { windowTokens: 1_000_000, charsPerToken: 4, share: 0.5 });
  const call = (name: string, args: Record<string, unknown>, signal?: AbortSignal) => {
    const tool = tools.find((candidate) => candidate.name === name);
    if (!tool) throw new Error(`no tool ${name}; have ${tools.map((t) => t.name).join(', ')}`);
    return tool.execute(tool.parameters.parse(args), makeContext(root, { policy, ...(signal ? { signal } : {}) }));
  };
  return { hub, root, runDir, notes, tools, call };
}

export function stderrLog(runDir: string, server: string): string {
  return fs.readFileSync(path.join(runDir, `mcp-${server}.stderr.log`), 'utf8');
}
