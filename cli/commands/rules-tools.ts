import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isToolAllowed } from 'rein/lib/tool-patterns.js';
import { enabledPhases, phaseRule } from 'rein/rules/schema.js';
import type { LoadedRules } from 'rein/run/rules-files/load-rules.js';
import { toolRegistry } from 'rein/tools/index.js';
import { selectTools } from 'rein/tools/select-tools.js';
import type { Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';
import { openRunMcp } from '../mcp-servers.js';

/**
 * `rein rules tools`: every tool a run with these rules would offer, in the
 * order the model sees them, and which of them each phase allows. MCP
 * servers are started (as a run would start them) to list their tools,
 * then closed; `--format json` for scripts.
 */
export async function printTools(loaded: LoadedRules, workspace: string, format: string, io: Io, env: NodeJS.ProcessEnv): Promise<number> {
  const { rules } = loaded;
  const tools = selectTools(toolRegistry(loaded.tools), rules.tools.enabled).map((tool) => tool.name);
  const runDir = mkdtempSync(join(tmpdir(), 'rein-rules-tools-'));
  const mcp = await openRunMcp({ rules, workspace, runDir, ...(loaded.configPath ? { configPath: loaded.configPath } : {}) }, env, io);
  try {
    const budget = { windowTokens: rules.context.windowTokens, charsPerToken: rules.context.charsPerToken, share: rules.mcp.toolSearchShare };
    const offered = mcp ? mcp.hub.tools(tools, budget).map((tool) => tool.name) : [];
    const catalogue = mcp?.hub.catalogue() ?? [];
    const onDemand = catalogue.filter((entry) => !offered.includes(entry.name)).map((entry) => entry.name);
    const sent = [...tools, ...offered];
    const phases = enabledPhases(rules).map((phase) => ({
      phase,
      tools: [...sent, ...onDemand].filter((name) => isToolAllowed(phaseRule(rules, phase).tools, name)),
    }));
    const servers = mcp?.hub.states() ?? [];
    if (format === 'json') {
      io.stdout.write(`${JSON.stringify({ tools: sent, onDemand, servers, phases }, null, 2)}\n`);
      return EXIT.done;
    }
    const lines = [`tools sent to the model, in order (${sent.length}): ${sent.join(', ')}`];
    if (onDemand.length > 0)
      lines.push(
        `found on demand with find_tools (${onDemand.length}, their definitions would take more than ${rules.mcp.toolSearchShare * 100}% of the window): ${onDemand.join(', ')}`,
      );
    for (const server of servers) lines.push(`MCP server ${server.server}: ${server.state}${server.problem ? ` (${server.problem})` : ''}`);
    for (const { phase, tools: allowed } of phases) lines.push(`${phase}: ${allowed.join(', ') || 'none'}`);
    io.stdout.write(`${lines.join('\n')}\n`);
    return EXIT.done;
  } finally {
    await mcp?.hub.close();
    rmSync(runDir, { recursive: true, force: true });
  }
}
