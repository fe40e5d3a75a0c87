import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderCalls, TEXT_CALL_FORMAT_NAMES, TEXT_CALL_FORMATS, type TextCallFormatName } from '../../actors/model/text-calls/formats.js';
import { recoverTextCalls } from '../../actors/model/text-calls/recover.js';
import { toolList } from '../../actors/model/text-calls/tool-list.js';

// Every census format, rendered as the family's template renders it (actors/model/text-calls/formats.ts): what is
// recognised comes back exactly (name, arguments, the model's id), and what only looks like a call never runs.

const property = (type: string) => ({ type });
const schemas = [
  {
    type: 'function',
    function: {
      name: 'write_note',
      parameters: {
        type: 'object',
        properties: {
          title: property('string'),
          body: property('string'),
          tags: property('array'),
          meta: property('object'),
          count: property('integer'),
          ratio: property('number'),
          urgent: property('boolean'),
        },
      },
    },
  },
  { type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: { path: property('string'), start: property('integer') } } } },
  { type: 'function', function: { name: 'run', parameters: { type: 'object', properties: { command: property('string') } } } },
];
const tools = toolList(schemas);

/** Formats with no call token or call syntax of their own: bare JSON, a Python list, a fence. */
const UNMARKED = new Set<TextCallFormatName>(['llama3-json', 'pythonic', 'xlam', 'llamacpp-generic', 'fenced-json']);
/** Formats that carry the model's own id, and the id each call gets when the renderer makes one up. */
const IDS: Partial<Record<TextCallFormatName, (name: string, index: number) => string>> = {
  'kimi-k2': (name, index) => `functions.${name}:${index}`,
  'mistral-v11': (_name, index) => `call${String(index).padStart(5, '0')}`,
  cohere: (_name, index) => String(index),
};

// What no format can carry, and no parser of the family reads back either: a raw-text value holding its own closing
// tag, a leading or trailing line break (the XML forms trim one), Gemma's string marker inside a string.
const UNCARRIABLE = /<\/(?:parameter|arg_value|function|invoke)|<parameter|<escape>|<\|"\|>|｜DSML｜|^[\r\n]|[\r\n]$/;
const text = fc
  .oneof(
    fc.string({ unit: 'grapheme', maxLength: 24 }),
    fc.constantFrom(
      'He said "hello"',
      "Martha's Vineyard",
      'C:\\Users\\file',
      'line1\nline2',
      '<div>content</div>',
      '{"nested": [1, 2]}',
      '北京 🌟 مرحبا',
      '123',
      'true',
      '',
    ),
  )
  .filter((value) => !UNCARRIABLE.test(value));
const key = fc.stringMatching(/^[a-z_][a-z0-9_]{0,7}$/).filter((name) => name !== '__proto__');
const scalar = fc.oneof(text, fc.integer({ min: -1e9, max: 1e9 }), fc.boolean(), fc.constant(null));
const args = {
  write_note: fc.record(
    {
      title: text,
      body: text,
      tags: fc.array(scalar, { maxLength: 3 }),
      meta: fc.dictionary(key, fc.oneof(scalar, fc.array(text, { maxLength: 2 })), { maxKeys: 3 }),
      count: fc.integer({ min: -1e9, max: 1e9 }),
      ratio: fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }).filter((value) => !Object.is(value, -0)),
      urgent: fc.boolean(),
    },
    { requiredKeys: [] },
  ),
  read_file: fc.record({ path: text, start: fc.integer({ min: 0, max: 1e6 }) }, { requiredKeys: ['path'] }),
  run: fc.record({ command: text }),
};
const call = fc.oneof(
  ...(Object.keys(args) as Array<keyof typeof args>).map((name) => args[name].map((value) => ({ name, args: value as Record<string, unknown> }))),
);
const calls = fc.array(call, { minLength: 1, maxLength: 3 });
const prose = fc.stringMatching(/^[A-Z][a-z ,]{0,30}\.$/);
const recover = (content: string, options?: Parameters<typeof recoverTextCalls>[2]) => recoverTextCalls(content, tools, options);
const runs = (content: string, options?: Parameters<typeof recoverTextCalls>[2]) => recover(content, options)?.calls ?? [];

describe.each(TEXT_CALL_FORMAT_NAMES)('the %s format', (format) => {
  const marked = !UNMARKED.has(format);

  it('property: calls rendered as the template writes them come back exactly, one or several, with the prose before them', () => {
    fc.assert(
      fc.property(calls, fc.option(prose, { nil: undefined }), (written, before) => {
        const recovery = recover(renderCalls(format, written, before));
        expect(recovery?.calls.map(({ name, arguments: value }) => ({ name, args: value }))).toEqual(written);
        const ids = IDS[format];
        if (ids) expect(recovery!.calls.map((entry) => entry.id)).toEqual(written.map((entry, index) => ids(entry.name, index)));
        expect(recovery!.notRun).toEqual([]);
        if (before && !('thinking' in TEXT_CALL_FORMATS[format])) expect(recovery!.content).toBe(before);
      }),
      { numRuns: 60 },
    );
  });

  it('property: quoted in a fence of another language, or in inline code, it runs nothing and asks nothing', () => {
    fc.assert(
      fc.property(calls, fc.constantFrom('python', 'text', 'markdown', 'sh'), (written, language) => {
        const block = renderCalls(format, written);
        const fence = block.includes('```') ? '~~~~' : '```';
        expect(recover(`Here is an example:\n${fence}${language}\n${block}\n${fence}\nDone.`)?.calls ?? []).toEqual([]);
        expect(recover(`Here is an example:\n${fence}${language}\n${block}\n${fence}\nDone.`)?.notRun ?? []).toEqual([]);
        if (!block.includes('`') && !block.includes('\n')) expect(recover(`Try \`${block}\` yourself.`)?.calls ?? []).toEqual([]);
      }),
      { numRuns: 25 },
    );
  });

  it('property: inside reasoning it does not run; a marked call there is named back to the model', () => {
    fc.assert(
      fc.property(calls, (written) => {
        const recovery = recover(`<think>\nMaybe:\n${renderCalls(format, written)}\n</think>\nLet me look first.`);
        expect(recovery?.calls ?? []).toEqual([]);
        expect((recovery?.notRun ?? []).every((entry) => entry.why === 'reasoning')).toBe(true);
        if (marked) expect(recovery!.notRun.length).toBeGreaterThan(0);
      }),
      { numRuns: 25 },
    );
  });

  it('property: repeated word for word from a file or a tool result it does not run, and the model is told why', () => {
    fc.assert(
      fc.property(calls, (written) => {
        const block = renderCalls(format, written);
        const recovery = recover(block, { shownTexts: ['no match here', `tests/fixture.txt:\n${block.replace(/\n/g, '\n  ')}\n`] });
        expect(recovery?.calls ?? []).toEqual([]);
        expect(recovery!.notRun.length).toBeGreaterThan(0);
        expect(recovery!.notRun.every((entry) => entry.why === 'echo')).toBe(true);
        // The same call the model writes itself (not shown to it) runs.
        expect(runs(block, { shownTexts: ['no match here'] }).length).toBe(written.length);
      }),
      { numRuns: 25 },
    );
  });

  it('property: inside a sentence it does not run; marked, the model is asked', () => {
    fc.assert(
      fc.property(calls, (written) => {
        const recovery = recover(`To call it, write ${renderCalls(format, written)} and wait for the answer.`);
        expect(recovery?.calls ?? []).toEqual([]);
        // Marked syntax inside a sentence is asked about (Command R's `Action:` marks a call only at a line's start).
        if (marked) expect(recovery!.notRun.map((entry) => entry.why)).toEqual(written.map(() => (format === 'command-r' ? 'position' : 'inline')));
      }),
      { numRuns: 25 },
    );
  });

  it(
    marked
      ? 'property: on lines of its own it runs even with more text after it'
      : 'property: with more text after it, an unmarked call does not run and the model is asked',
    () => {
      fc.assert(
        fc.property(calls, prose, (written, after) => {
          const recovery = recover(`${renderCalls(format, written)}\n\n${after}`);
          if (marked) expect(recovery?.calls.length).toBe(written.length);
          else {
            expect(recovery?.calls).toEqual([]);
            expect(recovery!.notRun.map((entry) => entry.why)).toEqual(written.map(() => 'position'));
          }
        }),
        { numRuns: 25 },
      );
    },
  );

  it(
    marked
      ? 'a marked call to a tool the run does not have is a call (the tool runner answers it with the nearest name)'
      : 'an unmarked call to a tool the run does not have is text, listed with the nearest name',
    () => {
      const recovery = recover(renderCalls(format, [{ name: 'read_files', args: { path: 'a.py' } }]));
      if (format === 'apertus') {
        // The name is a JSON key: only a tool's name makes the object a call.
        expect(recovery).toBeNull();
      } else if (marked) {
        expect(recovery?.calls.map((entry) => entry.name)).toEqual(['read_files']);
      } else {
        expect(recovery?.calls).toEqual([]);
        expect(recovery!.ignored).toEqual([expect.objectContaining({ name: 'read_files', didYouMean: 'read_file' })]);
      }
    },
  );

  it(
    marked
      ? 'after the endpoint has sent native calls, a marked call is still recovered'
      : 'after the endpoint has sent native calls, an unmarked call is data',
    () => {
      const written = [{ name: 'run', args: { command: 'ls' } }];
      expect(runs(renderCalls(format, written), { markedOnly: true }).length).toBe(marked ? 1 : 0);
    },
  );
});

describe('after the calls', () => {
  it.each([
    [
      'Qwen',
      '<tool_call>\n{"name": "run", "arguments": {"command": "ls"}}\n</tool_call>\n<tool_response>\nok\n</tool_response>\n<tool_call>\n{"name": "run", "arguments": {"command": "rm -rf build"}}\n</tool_call>',
    ],
    [
      'DeepSeek',
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>run<｜tool▁sep｜>{"command": "ls"}<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>ok<｜tool▁output▁end｜><｜tool▁outputs▁end｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>run<｜tool▁sep｜>{"command": "rm -rf build"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    ],
  ])('a tool result the %s model made up ends the reply: calls after it are not run, and the model is told', (_family, content) => {
    const recovery = recover(content)!;
    expect(recovery.calls.map((entry) => entry.arguments)).toEqual([{ command: 'ls' }]);
    expect(recovery.notRun).toEqual([expect.objectContaining({ name: 'run', why: 'after-result' })]);
    expect(recovery.content).toBeNull();
  });
});
