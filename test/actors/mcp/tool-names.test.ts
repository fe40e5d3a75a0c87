import { describe, expect, it } from 'vitest';
import { MAX_TOOL_NAME, nameTools } from '../../../actors/mcp/tool-names.js';

describe('model-facing names for MCP tools', () => {
  it('are mcp__<server>__<tool> with characters outside [A-Za-z0-9_-] replaced', () => {
    expect(nameTools([{ server: 'docs', tool: 'search.v2 (beta)' }]).map((tool) => tool.name)).toEqual(['mcp__docs__search_v2__beta_']);
  });

  it('are cut to 64 characters, and names that then clash get a short stable hash', () => {
    const long = 'x'.repeat(80);
    const named = nameTools([
      { server: 'docs', tool: `${long}a` },
      { server: 'docs', tool: `${long}b` },
    ]);
    expect(named.every((tool) => tool.name.length <= MAX_TOOL_NAME)).toBe(true);
    expect(new Set(named.map((tool) => tool.name)).size).toBe(2);
    expect(named[0]!.name).toMatch(/^mcp__docs__x+_[0-9a-f]{8}$/);
    // The same tool gets the same name whatever else the servers list.
    const again = nameTools([
      { server: 'other', tool: 'thing' },
      { server: 'docs', tool: `${long}a` },
      { server: 'docs', tool: `${long}b` },
    ]);
    expect(again[1]!.name).toBe(named[0]!.name);
  });

  it('two tools that sanitise alike are told apart, and a clash with a taken name is avoided', () => {
    const named = nameTools(
      [
        { server: 'db', tool: 'run.query' },
        { server: 'db', tool: 'run_query' },
      ],
      ['mcp__x__y'],
    );
    expect(named[0]!.name).not.toBe(named[1]!.name);
    expect(nameTools([{ server: 'x', tool: 'y' }], ['mcp__x__y'])[0]!.name).toMatch(/^mcp__x__y_[0-9a-f]{8}$/);
  });
});
