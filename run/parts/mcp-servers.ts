import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { McpHub } from '../../actors/mcp/hub.js';
import { expandVariables } from '../../actors/mcp/variables.js';
import { UsageError } from '../../lib/errors.js';
import { type McpServerRules, mcpServerSchema } from '../../rules/mcp-servers.js';
import type { Rules } from '../../rules/schema.js';
import { isTrustedMcpConfig, mcpConfigHash } from '../../rules/trust/index.js';
import { SECRET_NAME } from '../../tools/sandbox/plan/environment.js';
import type { Tracer } from '../record/trace.js';
import { describeServer, PROJECT_MCP_FILE, readProjectServers } from '../rules-files/mcp-json.js';
import { policyOf } from './sandbox.js';

/** The MCP servers a run will start, by name, and the secret values their settings hold (masked like the API key). */
interface PlannedServers {
  servers: Record<string, McpServerRules>;
  secrets: string[];
}

const SERVERS_FILE = 'mcp-servers.json';

/**
 * Which servers the run starts: `mcp.servers` from the rules and, when `mcp.projectConfig` is on, the workspace's
 * `.mcp.json` (each printed through `notice`; the rules win on a name both declare). A resumed run starts what it
 * started before (the agent may have changed `.mcp.json` since). Reads files only: nothing starts here.
 *
 * @example const planned = planServers({ rules, workspace, runDir, resume: false, env: process.env, notice });
 */
export function planServers(run: {
  rules: Rules;
  workspace: string;
  runDir: string;
  resume: boolean;
  env: NodeJS.ProcessEnv;
  notice: (text: string) => void;
}): PlannedServers {
  const servers = (run.resume ? startedServers(run.runDir) : null) ?? collectServers(run.rules, run.workspace, run.notice);
  return { servers, secrets: secretValues(servers, run.env) };
}

/**
 * Starts the planned servers, each traced, and waits until every one is ready or has failed (a failed one is
 * reported through `notice`; the run goes on without its tools). Null when there are none.
 *
 * @example const hub = await startServers(planned, { rules, workspace, runDir, configPath, env, trace, notice });
 */
export async function startServers(
  planned: PlannedServers,
  run: { rules: Rules; workspace: string; runDir: string; configPath?: string; env: NodeJS.ProcessEnv; trace?: Tracer; notice: (text: string) => void },
): Promise<McpHub | null> {
  if (Object.keys(planned.servers).length === 0) return null;
  const { openMcpHub } = await loadMcp();
  mkdirSync(run.runDir, { recursive: true });
  writeFileSync(join(run.runDir, SERVERS_FILE), JSON.stringify(planned.servers));
  const hub = await openMcpHub({
    servers: planned.servers,
    root: run.workspace,
    policy: policyOf(run.rules),
    env: run.env,
    runDir: run.runDir,
    protectedFiles: run.configPath ? [run.configPath] : [],
  });
  const { trace } = run;
  if (trace) hub.attach(({ kind, ...note }) => trace.log(kind, note as never));
  for (const { server, state, problem } of hub.states())
    if (state !== 'ready') run.notice(`MCP server ${server} is ${state}${problem ? `: ${problem}` : ''}; the run goes on without its tools`);
  return hub;
}

/**
 * The MCP client, loaded only by a run that has servers: the SDK it is built on is an optional peer of the core
 * (the CLI brings it), so a core installed on its own, for runs without servers, carries none of it.
 */
async function loadMcp(): Promise<typeof import('../../actors/mcp/hub.js')> {
  try {
    return await import('../../actors/mcp/hub.js');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && String((error as Error).message).includes('@modelcontextprotocol/sdk'))
      throw new UsageError(
        'these rules start MCP servers, which need the @modelcontextprotocol/sdk package beside rein: npm install @modelcontextprotocol/sdk@1 (the rein command, rein-cli, brings it)',
      );
    throw error;
  }
}

function startedServers(runDir: string): Record<string, McpServerRules> | null {
  const file = join(runDir, SERVERS_FILE);
  if (!existsSync(file)) return null;
  const parsed = z.record(z.string(), mcpServerSchema).safeParse(JSON.parse(readFileSync(file, 'utf8')));
  return parsed.success ? parsed.data : null;
}

/** Every server the run would start, by name. */
export function collectServers(rules: Rules, workspace: string, notice: (text: string) => void): Record<string, McpServerRules> {
  if (!rules.mcp.projectConfig) return { ...rules.mcp.servers };
  const project = readProjectServers(workspace);
  // The repository chooses what these servers are: started only as a person trusted the file, byte for byte.
  if (mcpConfigHash(workspace) !== null && !isTrustedMcpConfig(workspace))
    throw new UsageError(
      [
        `mcp.projectConfig is on, and ${join(workspace, PROJECT_MCP_FILE)} is not trusted as it is (new, or changed since it was trusted). It would start:`,
        ...(project.summary.length > 0 ? project.summary.map((line) => `  ${line}`) : ['  (no server rein can start)']),
        `Nothing was started. Review the file, then run: rein trust ${workspace}`,
      ].join('\n'),
    );
  for (const problem of project.problems) notice(`skipped ${problem}`);
  const fromProject = Object.entries(project.servers).filter(([name]) => !(name in rules.mcp.servers));
  if (fromProject.length > 0)
    notice(
      [
        `mcp.projectConfig is on: starting the servers ${PROJECT_MCP_FILE} declares:`,
        ...fromProject.map(([name, server]) => `  ${name}: ${describeServer(server)}`),
      ].join('\n'),
    );
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
