import { realpathSync } from 'node:fs';
import { type McpHub, openMcpHub } from '../mcp/hub.js';
import { describeServer, PROJECT_MCP_FILE, readProjectServers } from '../mcp/project-config.js';
import { SECRET_NAME } from '../process/environment.js';
import type { McpServerRules } from '../rules/mcp-servers.js';
import type { Rules } from '../rules/schema.js';
import { policyOf } from '../run/start-run.js';
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
): Promise<McpForRun | undefined> {
  const servers = collectServers(run.rules, run.workspace, io);
  if (Object.keys(servers).length === 0) return undefined;
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

/** Values read from variables with secret-looking names (`${DOCS_TOKEN}`, bearerTokenEnv). */
function secretValues(servers: Record<string, McpServerRules>, env: NodeJS.ProcessEnv): string[] {
  const names = new Set<string>();
  for (const server of Object.values(servers)) {
    const texts = server.type === 'http' ? Object.values(server.headers) : Object.values(server.env);
    for (const text of texts) for (const match of text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)) if (SECRET_NAME.test(match[1]!)) names.add(match[1]!);
    if (server.type === 'http' && server.bearerTokenEnv) names.add(server.bearerTokenEnv);
  }
  return [...names].flatMap((name) => (env[name] ? [env[name]] : []));
}
