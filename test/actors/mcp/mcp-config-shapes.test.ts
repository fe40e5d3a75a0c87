import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpHub } from '../../../actors/mcp/hub.js';
import { loadRules } from '../../../run/rules-files/load-rules.js';
import { makeTempDir } from '../../helpers/workspace.js';
import { openHub, stdio } from './mcp-fixtures.js';

/** Rules files in the shape MCP clients document (Claude Code's .mcp.json, Claude Desktop, Cursor: `mcpServers` at the top). */

const open: McpHub[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((hub) => hub.close()));
});

async function load(rules: unknown) {
  const folder = makeTempDir('rein-mcp-shape-');
  const configPath = path.join(folder, 'rein.config.json');
  fs.writeFileSync(configPath, JSON.stringify(rules));
  return loadRules({ configPath, workspace: makeTempDir('rein-mcp-shape-ws-') });
}

describe('MCP servers written the way users paste them', () => {
  it('a top-level mcpServers block is read as mcp.servers; "streamable-http" is http', async () => {
    const loaded = await load({
      mcpServers: {
        fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'], env: { DEBUG: '1' } },
        docs: { type: 'streamable-http', url: 'https://docs.example.com/mcp' },
      },
    });
    expect(loaded.rules.mcp.servers.fs).toMatchObject({ type: 'stdio', command: 'npx', env: { DEBUG: '1' } });
    expect(loaded.rules.mcp.servers.docs).toMatchObject({ type: 'http', url: 'https://docs.example.com/mcp' });
  });

  it('a server named in mcpServers and in mcp.servers is refused, naming it', async () => {
    await expect(load({ mcpServers: { fs: { command: 'a' } }, mcp: { servers: { fs: { command: 'b' } } } })).rejects.toThrow(
      /mcpServers\.fs: also declared in mcp\.servers/,
    );
  });

  it('a transport rein does not speak is refused with the transports it does', async () => {
    await expect(load({ mcpServers: { old: { type: 'sse', url: 'https://x.example.com/sse' } } })).rejects.toThrow(
      /"type": "sse" \(the older HTTP\+SSE transport\) is not supported: rein speaks "stdio" .* and "http"/,
    );
    await expect(load({ mcp: { servers: { ws: { type: 'ws', url: 'wss://x.example.com' } } } })).rejects.toThrow(/"type": "ws" is not a transport rein knows/);
    // A known type with a mistake keeps the precise message.
    await expect(load({ mcp: { servers: { h: { type: 'http' } } } })).rejects.toThrow(/mcp\.servers\.h: url: .* \(for a Streamable HTTP server\)/);
    await expect(load({ mcpServers: { u: { url: 'https://x.example.com/mcp' } } })).rejects.toThrow(
      /command: .*a stdio server, which an entry without "type": "http" is/,
    );
  });
});

describe('a sandboxed server whose dependencies are symbolic links', () => {
  it('fails to start with a hint naming the link and the readable that shows it; with that readable it starts', async () => {
    const app = makeTempDir('rein-mcp-linked-app-');
    const elsewhere = makeTempDir('rein-mcp-linked-dep-');
    fs.mkdirSync(path.join(elsewhere, 'greeting'));
    fs.writeFileSync(path.join(elsewhere, 'greeting', 'package.json'), JSON.stringify({ name: 'greeting', main: 'index.js' }));
    fs.writeFileSync(path.join(elsewhere, 'greeting', 'index.js'), 'module.exports = "hi";\n');
    fs.mkdirSync(path.join(app, 'node_modules'));
    fs.symlinkSync(path.join(elsewhere, 'greeting'), path.join(app, 'node_modules', 'greeting'));
    const server = path.join(app, 'server.cjs');
    const hostile = path.join(import.meta.dirname, 'fixtures/hostile-server.mjs');
    fs.copyFileSync(hostile, path.join(app, 'hostile-server.mjs'));
    fs.writeFileSync(server, `require('greeting');\nprocess.argv.splice(2, 0, '');\nimport('./hostile-server.mjs');\n`);

    const failing = await openHub({ linked: stdio([server], { maxRestarts: 0, startupTimeoutSeconds: 10 }) }, { sandbox: 'bwrap' });
    open.push(failing.hub);
    const problem = failing.notes.filter((note) => note.kind === 'mcp_server');
    expect(JSON.stringify(problem)).toContain(
      `links to ${fs.realpathSync(path.join(elsewhere, 'greeting'))}, which the sandbox does not show: add \\"readable\\"`,
    );

    const working = await openHub({ linked: stdio([server], { readable: [elsewhere], startupTimeoutSeconds: 10 }) }, { sandbox: 'bwrap' });
    open.push(working.hub);
    expect(working.tools.map((tool) => tool.name)).toContain('mcp__linked__echo');
  });
});
