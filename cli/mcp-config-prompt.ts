import { createInterface } from 'node:readline/promises';
import { escapeControl } from 'rein/lib';
import { isTrustedMcpConfig, mcpConfigHash, type Rules, trustMcpConfig } from 'rein/rules';
import { readProjectServers } from 'rein/run';

/**
 * With `mcp.projectConfig` on and a workspace `.mcp.json` nobody trusted as it is, a person at a terminal is shown
 * what it would start and asked; yes records it (as `rein trust` does). Without a terminal nothing is asked: the run
 * refuses to start the servers (run/parts/mcp-servers.ts) and says how to trust the file.
 *
 * @example await askAboutProjectServers(rules, workspace, { input: process.stdin, output: process.stderr });
 */
export async function askAboutProjectServers(
  rules: Rules,
  workspace: string,
  terminal: { input: NodeJS.ReadableStream & { isTTY?: boolean }; output: NodeJS.WritableStream & { isTTY?: boolean } },
): Promise<void> {
  if (!rules.mcp.projectConfig || !terminal.input.isTTY || !terminal.output.isTTY) return;
  if (mcpConfigHash(workspace) === null || isTrustedMcpConfig(workspace)) return;
  const { summary, problems } = readProjectServers(workspace);
  terminal.output.write(
    [
      `\nrein: mcp.projectConfig is on, and ${workspace}/.mcp.json is new or changed since it was trusted. It would start:`,
      ...(summary.length > 0 ? summary.map((line) => `  ${escapeControl(line)}`) : ['  (no server rein can start)']),
      ...problems.map((problem) => `  skipped ${escapeControl(problem)}`),
      '',
    ].join('\n'),
  );
  const prompt = createInterface({ input: terminal.input, output: terminal.output, terminal: true });
  try {
    const answer = await prompt.question('start these servers, and trust this .mcp.json as it is? [y/N] ');
    if (/^y(es)?$/i.test(answer.trim())) trustMcpConfig(workspace);
  } finally {
    prompt.close();
  }
}
