import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { enabledPhases, phaseAllowsTool } from 'rein/rules';
import { type LoadedRules, planServers, startServers } from 'rein/run';
import { selectTools, toolRegistry } from 'rein/tools';
import type { Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';

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
  const notice = (text: string) => io.stderr.write(`rein: ${text}\n`);
  const planned = planServers({ rules, workspace, runDir, resume: false, env, notice });
  const hub = await startServers(planned, { rules, workspace, runDir, env, notice, ...(loaded.configPath ? { configPath: loaded.configPath } : {}) });
  try {
    const budget = { windowTokens: rules.context.windowTokens, charsPerToken: rules.context.charsPerToken, share: rules.mcp.toolSearchShare };
    const offered = hub ? hub.tools(tools, budget).map((tool) => tool.name) : [];
    const catalogue = hub?.catalogue() ?? [];
    const onDemand = catalogue.filter((entry) => !offered.includes(entry.name)).map((entry) => entry.name);
    const sent = [...tools, ...offered];
    const phases = enabledPhases(rules).map((phase) => ({
      phase,
      tools: [...sent, ...onDemand].filter((name) => phaseAllowsTool(rules, phase, name)),
    }));
    const servers = hub?.states() ?? [];
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
    await hub?.close();
    rmSync(runDir, { recursive: true, force: true });
  }
}
