import { describe, expect, it } from 'vitest';
import type { Entry } from '../../../visualizer/page/entries.js';
import { filterOf } from '../../../visualizer/page/event-filters.js';
import { describeEntry } from '../../../visualizer/page/event-format.js';

const entry = (kind: string, data: Record<string, unknown>) => ({ kind, data: { kind, ...data } }) as unknown as Entry;

describe('MCP lines in the visualizer', () => {
  it('a tool call names the server and the tool, and how it ended', () => {
    const row = describeEntry(
      entry('tool', {
        name: 'mcp__docs__search',
        args: { q: 'x' },
        ok: false,
        ms: 60000,
        effect: { kind: 'mcp', server: 'docs', tool: 'search', outcome: 'timeout', readOnly: true },
      }),
      null,
    );
    expect(row.text).toContain('MCP docs/search timeout');
    expect(row.tone).toBe('failed');
  });

  it("a server's lifecycle steps and the tools offered are rows under Tools", () => {
    const restarting = entry('mcp_server', { server: 'docs', state: 'restarting', restarts: 1, problem: 'the connection closed' });
    expect(describeEntry(restarting, null)).toMatchObject({
      badge: 'mcp',
      tone: 'warning',
      text: 'MCP server docs: restarting (restart 1): the connection closed',
    });
    const ready = entry('mcp_server', { server: 'docs', state: 'ready', restarts: 0, problem: null, tools: 3, where: 'stdio, unsandboxed' });
    expect(describeEntry(ready, null).text).toBe('MCP server docs: ready, 3 tools (stdio, unsandboxed)');
    const offered = entry('mcp_tools', { change: 'offered', mode: 'search', tools: [] });
    expect(describeEntry(offered, null).text).toBe('offered 0 MCP tools (the rest found on demand with find_tools)');
    expect([restarting, offered].map(filterOf)).toEqual(['tools', 'tools']);
  });
});
