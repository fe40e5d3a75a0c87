import { describe, expect, it } from 'vitest';
import { checkToolSchema, SCHEMA_LIMITS } from '../../../actors/mcp/tool-schema.js';
import { parseToolArguments } from '../../../tools/tool-arguments.js';
import { toolSchemas } from '../../../tools/tool-schemas.js';

const ok = (input: unknown) => {
  const checked = checkToolSchema(input);
  if (!checked.ok) throw new Error(checked.reason);
  return checked;
};

describe("a server's tool schema (hostile until checked)", () => {
  it('keeps what models understand and drops keywords OpenAI-compatible servers reject', () => {
    const { schema } = ok({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'x',
      type: 'object',
      properties: {
        q: { type: 'string', format: 'uri', examples: ['a'], 'x-vendor': 1, description: 'query' },
        mode: { oneOf: [{ const: 'a' }, { const: 'b' }] },
      },
      required: ['q'],
    });
    expect(schema).toEqual({
      type: 'object',
      properties: { q: { type: 'string', description: 'query' }, mode: { anyOf: [{ const: 'a' }, { const: 'b' }] } },
      required: ['q'],
      additionalProperties: false,
    });
  });

  it('inlines local $refs, and a cycle reads as any value instead of recursing', () => {
    const { schema } = ok({
      type: 'object',
      properties: { node: { $ref: '#/$defs/Node' } },
      $defs: { Node: { type: 'object', properties: { next: { $ref: '#/$defs/Node' } } } },
    });
    expect(schema).toEqual({ type: 'object', properties: { node: { type: 'object', properties: { next: {} } } }, additionalProperties: false });
  });

  it.each([
    ['not an object', 'a string', /not an object/],
    ['an array schema', { type: 'array' }, /not "object"/],
    ['too deep', nest(SCHEMA_LIMITS.depth + 2), /nests deeper/],
    ['too wide', { type: 'object', properties: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`p${i}`, { type: 'string' }])) }, /101 properties/],
    ['a huge enum', { type: 'object', properties: { e: { enum: Array.from({ length: 500 }, (_, i) => i) } } }, /500 values/],
    [
      'too long',
      { type: 'object', properties: Object.fromEntries(Array.from({ length: 90 }, (_, i) => [`p${i}`, { type: 'string', description: 'd'.repeat(300) }])) },
      /characters \(at most/,
    ],
  ])('is refused when %s', (_what, input, reason) => {
    const checked = checkToolSchema(input);
    expect(checked.ok).toBe(false);
    expect(checked.ok ? '' : checked.reason).toMatch(reason);
  });

  it('clips descriptions and strips control characters', () => {
    const { schema } = ok({ type: 'object', properties: { a: { type: 'string', description: `ig\u0007nore ${'x'.repeat(1000)}` } } });
    const description = (schema.properties as Record<string, { description: string }>).a!.description;
    expect(description.length).toBeLessThanOrEqual(SCHEMA_LIMITS.textChars);
    expect(description.startsWith('ignore')).toBe(true);
  });

  it("validates the model's arguments like a built-in tool, and is sent as a plain function tool", () => {
    const { parameters } = ok({ type: 'object', properties: { q: { type: 'string' }, n: { type: 'integer' } }, required: ['q'] });
    const tool = {
      name: 'mcp__docs__search',
      description: 'd',
      parameters,
      execute: async () => ({ ok: true, content: '', effect: { kind: 'none' as const } }),
    };
    expect(parseToolArguments(tool, '{"q": "x", "n": 2}')).toEqual({ ok: true, args: { q: 'x', n: 2 } });
    expect(parseToolArguments(tool, '{"n": "2"}')).toMatchObject({ ok: false, message: expect.stringContaining('missing required argument `q`') });
    const [sent] = toolSchemas([tool]);
    expect(sent).toMatchObject({ type: 'function', function: { name: 'mcp__docs__search', parameters: { type: 'object', required: ['q'] } } });
  });
});

function nest(depth: number): Record<string, unknown> {
  let node: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < depth; i++) node = { type: 'object', properties: { a: node } };
  return node;
}
