import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultTools, findTool, parseToolArguments, toolSchemas, toolSchemasJson } from '../../tools/index.js';
import { locateJsonError } from '../../tools/shaping/json-error.js';

const tool = (name: string) => {
  const found = findTool(defaultTools, name);
  if (found === undefined) throw new Error(`no tool ${name}`);
  return found;
};

describe('toolSchemas', () => {
  it('lists the six seed tools and job as OpenAI function tools with zod-derived parameters', () => {
    const schemas = toolSchemas(defaultTools);
    expect(schemas.map((schema) => schema.function.name)).toEqual(['read_file', 'grep', 'edit_file', 'run', 'update_todo', 'finish', 'job']);
    const readFile = schemas[0]!;
    expect(readFile.type).toBe('function');
    expect(readFile.function.parameters).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['path'],
      properties: {
        path: { type: 'string', description: 'File path, relative to the repository root.' },
        start: { type: 'integer', default: 1, description: 'First line to show (1-based). Defaults to 1.' },
      },
    });
    const todoItems = (schemas[4]!.function.parameters.properties as { items: { items: unknown } }).items.items;
    expect(todoItems).toMatchObject({ type: 'object', required: ['task', 'done'], additionalProperties: false });
  });

  it('serializes byte-identically with sorted keys, also through plain JSON.stringify', () => {
    const json = toolSchemasJson(defaultTools);
    expect(toolSchemasJson(defaultTools)).toBe(json);
    expect(JSON.stringify(toolSchemas(defaultTools))).toBe(json);
    expect(json).not.toContain('$schema');
    expect(json.indexOf('"function"')).toBeLessThan(json.indexOf('"type":"function"'));
  });

  it('gives every tool and every parameter a description', () => {
    for (const schema of toolSchemas(defaultTools)) {
      expect(schema.function.description, schema.function.name).toMatch(/\S{3,}.*\S{3,}/);
      for (const [name, property] of Object.entries(schema.function.parameters.properties as Record<string, { description?: string }>)) {
        expect(property.description, `${schema.function.name}.${name}`).toMatch(/\S/);
      }
    }
  });
});

describe('findTool', () => {
  it('finds by name and returns undefined for unknown tools', () => {
    expect(findTool(defaultTools, 'run')?.name).toBe('run');
    expect(findTool(defaultTools, 'rm')).toBeUndefined();
  });
});

describe('parseToolArguments', () => {
  it('applies defaults and treats an empty string as no arguments', () => {
    expect(parseToolArguments(tool('read_file'), '{"path": "a.py"}')).toEqual({ ok: true, args: { path: 'a.py', start: 1 } });
    expect(parseToolArguments(tool('grep'), '{"pattern": "x"}')).toEqual({ ok: true, args: { pattern: 'x', path: '.' } });
    expect(parseToolArguments(tool('finish'), '')).toEqual({ ok: false, message: 'Invalid arguments for finish: missing required argument `summary`.' });
  });

  it('reports invalid JSON with its position', () => {
    const result = parseToolArguments(tool('run'), '{"command": "ls",\n "x": }');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(/^Invalid arguments for run: not valid JSON at line 2, column 7 \(.+\)\.$/);
  });

  it('rejects non-objects', () => {
    expect(parseToolArguments(tool('run'), '["ls"]')).toEqual({ ok: false, message: 'Invalid arguments for run: expected a JSON object, got array.' });
    expect(parseToolArguments(tool('run'), 'null')).toEqual({ ok: false, message: 'Invalid arguments for run: expected a JSON object, got null.' });
  });

  it('names missing, mistyped and unknown arguments together', () => {
    const result = parseToolArguments(tool('edit_file'), '{"path": 7, "old": "a", "replacement": "b"}');
    expect(result).toEqual({
      ok: false,
      message:
        'Invalid arguments for edit_file: `path` must be string, got number 7; missing required argument `new`; unknown argument `replacement` (expected: path, old, new).',
    });
  });

  it('points into nested arrays', () => {
    const result = parseToolArguments(tool('update_todo'), '{"items": [{"task": "a", "done": "yes"}]}');
    expect(result).toEqual({ ok: false, message: 'Invalid arguments for update_todo: `items[0].done` must be boolean, got string "yes".' });
  });

  it('never echoes megabytes back', () => {
    const huge = 'x'.repeat(2_000_000);
    const asValue = parseToolArguments(tool('read_file'), JSON.stringify({ path: 'a', start: huge }));
    const asKey = parseToolArguments(tool('read_file'), JSON.stringify({ path: 'a', [huge]: 1 }));
    const asJson = parseToolArguments(tool('read_file'), `{"path": "${huge}`);
    for (const result of [asValue, asKey, asJson]) {
      expect(result.ok).toBe(false);
      expect(!result.ok && result.message.length).toBeLessThan(400);
    }
    expect(!asValue.ok && asValue.message).toContain('(2000000 chars)');
  });
});

describe('locateJsonError', () => {
  it('finds the first error or returns null for valid JSON', () => {
    expect(locateJsonError('{"a": [1, 2, {"b": null}], "c": "\\u00e9"}')).toBeNull();
    expect(locateJsonError('{"a": }')).toEqual({ offset: 6, line: 1, column: 7 });
    expect(locateJsonError('[1, 2,]')).toEqual({ offset: 6, line: 1, column: 7 });
    expect(locateJsonError('{"a": 1}\n x')).toEqual({ offset: 10, line: 2, column: 2 });
    expect(locateJsonError('{"a": "unterminated')).toEqual({ offset: 19, line: 1, column: 20 });
  });

  it('agrees with JSON.parse on what is valid, for valid JSON and mutated JSON', () => {
    const mutated = fc
      .tuple(fc.json(), fc.nat(), fc.constantFrom('', ',', '}', ']', '"', ':', '\\', ' ', '0', '-', 'e', '\n'))
      .map(([json, at, insert]) => json.slice(0, at % (json.length + 1)) + insert + json.slice(at % (json.length + 1)));
    fc.assert(
      fc.property(fc.oneof(fc.json(), mutated), (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        expect(locateJsonError(text) === null).toBe(valid);
      }),
      { numRuns: 2000 },
    );
  });
});
