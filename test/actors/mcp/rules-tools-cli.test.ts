import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { makeTempDir } from '../../helpers/workspace.js';
import { EVERYTHING } from './mcp-fixtures.js';

describe('rein rules tools', () => {
  it('lists every tool a run would offer, MCP ones included, and what each phase allows', async () => {
    const workspace = makeTempDir('rein-rules-tools-');
    const rules = {
      mcp: { servers: { every: { command: process.execPath, args: [EVERYTHING, 'stdio'], tools: ['echo', 'get-*'] } } },
      phases: { plan: { tools: ['read_file', 'mcp__every__get-s*'] } },
    };
    fs.writeFileSync(path.join(workspace, 'rein.config.json'), JSON.stringify(rules));
    const env = { ...process.env, XDG_STATE_HOME: makeTempDir('rein-state-') };
    expect((await runCli(['trust', workspace], { env })).code).toBe(0);
    const result = await runCli(['rules', 'tools', '--format', 'json'], { cwd: workspace, env });
    expect(result.code).toBe(0);
    const listed = JSON.parse(result.stdout) as { tools: string[]; servers: { server: string; state: string }[]; phases: { phase: string; tools: string[] }[] };
    expect(listed.tools.slice(0, 7)).toEqual(['read_file', 'grep', 'edit_file', 'run', 'update_todo', 'finish', 'job']);
    expect(listed.tools).toContain('mcp__every__echo');
    expect(listed.tools).not.toContain('mcp__every__toggle-simulated-logging');
    expect(listed.servers).toEqual([{ server: 'every', state: 'ready', problem: null }]);
    expect(listed.phases.find((phase) => phase.phase === 'plan')?.tools).toEqual(['read_file', 'mcp__every__get-structured-content', 'mcp__every__get-sum']);
  });
});

describe('rein rules graph --machine mcp-server', () => {
  it("prints an MCP server's lifecycle with its guards", async () => {
    const result = await runCli(['rules', 'graph', '--machine', 'mcp-server']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('ready --> restarting : lost [restartsLeft]');
    expect(result.stdout).toContain('starting --> failed : connection.error [else]');
    expect((await runCli(['rules', 'graph', '--machine', 'nope'])).stderr).toContain('--machine is mcp-server, not "nope"');
  });
});
