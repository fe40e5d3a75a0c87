import { describe, expect, it } from 'vitest';
import { globMatch, isToolAllowed, namesDeclaredServer } from '../../lib/tool-patterns.js';

describe('phase tool-list entries', () => {
  it('an MCP entry names a declared server when any of the servers fits, by pattern or by full name', () => {
    expect(namesDeclaredServer('mcp__docs__*', ['docs', 'tracker'])).toBe(true);
    expect(namesDeclaredServer('mcp__docs__search', ['docs'])).toBe(true);
    expect(namesDeclaredServer('mcp__wiki__search', ['docs', 'tracker'])).toBe(false);
  });

  it('find_tools is allowed wherever any MCP entry is, beside rein’s own tools', () => {
    expect(isToolAllowed(['read_file', 'mcp__docs__*'], 'find_tools')).toBe(true);
    expect(isToolAllowed(['read_file'], 'find_tools')).toBe(false);
  });

  it('a glob matches the rest of the entry literally: a dot is a dot', () => {
    expect(globMatch('read.file', 'read.file')).toBe(true);
    expect(globMatch('read.file', 'readXfile')).toBe(false);
    expect(globMatch('mcp__docs__*', 'mcp__docs__search')).toBe(true);
    expect(globMatch('read_?ile', 'read_file')).toBe(true);
  });
});
