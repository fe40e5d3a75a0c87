import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TOOL_NAMES } from '../../rules/tool-names.js';
import { call, reply, runScripted } from '../../testing/index.js';
import { defaultTools, toolRegistry } from '../../tools/index.js';
import type { AnyTool } from '../../tools/types.js';

// One tool registry (tools/index.ts, rules/tool-names.ts): rein's tools and the rules' default names are one list;
// a tool of yours is registered once, added to rein's, and offered where the phases allow it.

const wordCount: AnyTool = {
  name: 'word_count',
  description: 'Count the words in a text.',
  parameters: z.strictObject({ text: z.string() }),
  execute: async (args) => ({ content: String((args as { text: string }).text.split(/\s+/).length), ok: true, effect: { kind: 'none' } }),
};

describe('one tool registry', () => {
  it("rein's tools are the names the rules default to, in that order, each tool carrying its own name", () => {
    expect(defaultTools.map((tool) => tool.name)).toEqual([...TOOL_NAMES]);
  });

  it("yours are added after rein's; a clash with one of rein's is refused unless replace is asked for", () => {
    expect(toolRegistry([wordCount]).map((tool) => tool.name)).toEqual([...TOOL_NAMES, 'word_count']);
    const myRead = { ...wordCount, name: 'read_file' };
    expect(() => toolRegistry([myRead], { source: 'rein.config.ts' })).toThrow(
      'rein.config.ts: a tool named "read_file" is one of rein\'s; give yours another name, or pass replace: true to use yours instead',
    );
    const replaced = toolRegistry([myRead], { replace: true });
    expect(replaced.find((tool) => tool.name === 'read_file')).toBe(myRead);
    expect(replaced).toHaveLength(TOOL_NAMES.length);
    expect(() => toolRegistry([wordCount, wordCount])).toThrow('two tools are named "word_count"');
    expect(toolRegistry([wordCount], { only: true })).toEqual([wordCount]);
  });

  it("runScripted({ tools }) adds yours to rein's tools and enables it; replaceTools: 'only' leaves rein's out", async () => {
    const added = await runScripted({
      testCmd: 'true',
      rules: { budgets: { maxSteps: 1 } },
      tools: [wordCount],
      script: [reply(call('word_count', { text: 'one two three' }), call('read_file', { path: 'missing.txt' }))],
    });
    const results = added.record.filter((message) => message.role === 'tool').map((message) => String(message.content));
    expect(results[0]).toBe('3');
    expect(results[1]).not.toMatch(/unknown tool/);
    const only = await runScripted({
      testCmd: 'true',
      rules: { budgets: { maxSteps: 1 }, tools: { enabled: ['finish'] } },
      tools: [wordCount, defaultTools.find((tool) => tool.name === 'finish')!],
      replaceTools: 'only',
      script: [reply(call('read_file', { path: 'missing.txt' }))],
    });
    expect(String(only.record.find((message) => message.role === 'tool')?.content)).toBe(
      'Tool error: unknown tool "read_file". Available tools: finish, word_count.',
    );
  });
});
