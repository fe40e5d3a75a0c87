import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type McpHub, openMcpHub } from 'rein/actors/mcp/hub.js';
import { expandVariables } from 'rein/actors/mcp/variables.js';
import { type McpServerRules, mcpServerSchema } from 'rein/rules/mcp-servers.js';
import type { Rules } from 'rein/rules/schema.js';
import { describeServer, PROJECT_MCP_FILE, readProjectServers } from 'rein/run/rules-files/mcp-json.js';
import { policyOf } from 'rein/run/start-run.js';
import { SECRET_NAME } from 'rein/tools/sandbox/plan/environment.js';
import { z } from 'zod';
import type { Io } from './execute-run.js';

export interface McpForRun {
  hub: McpHub;
  /** Tokens and other secret values the servers were configured with: masked in results and the trace like the API key. */
  secrets: string[];
}

/**
 * The MCP servers a run starts: `mcp.servers` from the rules and, when
 * `mcp.projectConfig` is on, the workspace's `.mcp.json` (what it starts is
 * printed first; the rules win on a name both declare). Waits until every
 * server is ready or has failed, and says which failed. Undefined when
 * there are none.
 *
 * @example const mcp = await openRunMcp({ rules, workspace, runDir, configPath }, process.env, io);
 */
export async function openRunMcp(
  run: { rules: Rules; workspace: string; runDir: string; configPath?: string },
  env: NodeJS.ProcessEnv,
  io: Io,
  resume = false,
): Promise<McpForRun | undefined> {
  const servers = (resume ? startedServers(run.runDir) : null) ?? collectServers(run.rules, run.workspace, io);
  if (Object.keys(servers).length === 0) return undefined;
  // A resumed run starts what this run started, not what .mcp.json says now (the agent may have changed it).
  mkdirSync(run.runDir, { recursive: true });
  writeFileSync(join(run.runDir, SERVERS_FILE), JSON.stringify(servers));
  const hub = await openMcpHub({
    servers,
    root: realpathSync(run.workspace),
    policy: policyOf(run.rules),
    env,
    runDir: run.runDir,
    protectedFiles: run.configPath ? [run.configPath] : [],
  });
  for (const { server, state, problem } of hub.states())
    if (state !== 'ready') io.stderr.write(`rein: MCP server ${server} is ${state}${problem ? `: ${problem}` : ''}; the run goes on without its tools\n`);
  return { hub, secrets: secretValues(servers, env) };
}

const SERVERS_FILE = 'mcp-servers.json';

function startedServers(runDir: string): Record<string, McpServerRules> | null {
  const file = join(runDir, SERVERS_FILE);
  if (!existsSync(file)) return null;
  const parsed = z.record(z.string(), mcpServerSchema).safeParse(JSON.parse(readFileSync(file, 'utf8')));
  return parsed.success ? parsed.data : null;
}

/** Every server the run would start, by name. */
export function collectServers(rules: Rules, workspace: string, io: Io): Record<string, McpServerRules> {
  if (!rules.mcp.projectConfig) return { ...rules.mcp.servers };
  const project = readProjectServers(workspace);
  for (const problem of project.problems) io.stderr.write(`rein: skipped ${problem}\n`);
  const fromProject = Object.entries(project.servers).filter(([name]) => !(name in rules.mcp.servers));
  if (fromProject.length > 0) {
    io.stderr.write(`rein: mcp.projectConfig is on: starting the servers ${PROJECT_MCP_FILE} declares:\n`);
    for (const [name, server] of fromProject) io.stderr.write(`  ${name}: ${describeServer(server)}\n`);
  }
  return { ...Object.fromEntries(fromProject), ...rules.mcp.servers };
}

/**
 * Values that are secrets: read from variables with secret-looking names (`${DOCS_TOKEN}`, bearerTokenEnv),
 * and those given to a header or variable with such a name (`"API_KEY": "…"`, `Authorization`), as expanded.
 */
function secretValues(servers: Record<string, McpServerRules>, env: NodeJS.ProcessEnv): string[] {
  const names = new Set<string>();
  const values: string[] = [];
  for (const server of Object.values(servers)) {
    const entries = Object.entries(server.type === 'http' ? server.headers : server.env);
    for (const [key, text] of entries) {
      for (const match of text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)) if (SECRET_NAME.test(match[1]!)) names.add(match[1]!);
      if (SECRET_NAME.test(key) || /^authorization$/i.test(key)) values.push(...expandQuietly(text, env).split(/\s+/));
    }
    if (server.type === 'http' && server.bearerTokenEnv) names.add(server.bearerTokenEnv);
  }
  return [...values, ...[...names].flatMap((name) => (env[name] ? [env[name]] : []))].filter((value) => value.length >= 6);
}

function expandQuietly(text: string, env: NodeJS.ProcessEnv): string {
  try {
    return expandVariables({ value: text }, env, 'secret').value!;
  } catch {
    return text;
  }
}
