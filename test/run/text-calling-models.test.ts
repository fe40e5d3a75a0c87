import { afterEach, describe, expect, it } from 'vitest';
import { call, MANGLES, mangledCall, removeTempDirs, reply, runScripted, TEXT_CALL_SHAPES, textReply } from '../../testing/index.js';

afterEach(() => removeTempDirs());

const files = { 'add.js': 'export const add = (a, b) => a - b;\n' };
const edit = { path: 'add.js', old: 'a - b', new: 'a + b' };
const testCmd = 'node -e "import(\'./add.js\').then((m) => process.exit(m.add(2, 3) === 5 ? 0 : 1))"';
const rules = { phases: { plan: { enabled: false } }, budgets: { maxSteps: 8 } };

describe('the test kit speaks the shapes of models without a tool parser', () => {
  it.each(TEXT_CALL_SHAPES)('a model writing %s calls as text fixes the bug; each recovery is traced', async (shape) => {
    const run = await runScripted({
      files,
      testCmd,
      rules,
      script: [
        textReply(shape, call('read_file', { path: 'add.js' })),
        textReply(shape, call('edit_file', edit)),
        textReply(shape, call('run', { command: testCmd })),
        textReply(shape, call('finish', { summary: 'fixed' })),
      ],
    });
    expect(run.output.status).toBe('done');
    expect(run.lines('calls_recovered').map((line) => line.shapes)).toEqual([[shape], [shape], [shape], [shape]]);
  });

  it('with model.recoverToolCalls off the same model gets nowhere (what rein eval compares)', async () => {
    const run = await runScripted({
      files,
      testCmd,
      rules: { ...rules, model: { recoverToolCalls: false } },
      script: () => textReply('hermes', call('edit_file', edit)),
    });
    expect(run.output.status).not.toBe('done');
    expect(run.lines('tool')).toEqual([]);
  });

  it.each(MANGLES)('a model whose arguments come %s is repaired, the repair traced with the original', async (how) => {
    const run = await runScripted({
      files,
      testCmd,
      rules,
      script: [reply(mangledCall('edit_file', edit, how)), reply(mangledCall('run', { command: testCmd }, how)), reply(call('finish', { summary: 'fixed' }))],
    });
    expect(run.output.status).toBe('done');
    const repairs = run.lines('arguments_repaired');
    expect(repairs.map((line) => line.name)).toEqual(['edit_file', 'run']);
    expect(repairs[0]!.original).not.toBe(JSON.stringify(edit));
  });
});

describe('a reply that cannot be understood is shown to the model as such', () => {
  it.each(['hermes', 'mistral', 'llama', 'function-tag'] as const)(
    'a %s call to a tool the run does not have gets the nearest name, as a native call does; the record keeps the call',
    async (shape) => {
      const run = await runScripted({
        files,
        testCmd,
        rules: { ...rules, budgets: { maxSteps: 1 } },
        script: [textReply(shape, call('read_files', { path: 'add.js' }))],
      });
      const results = run.record.filter((message) => message.role === 'tool').map((message) => String(message.content));
      expect(results).toEqual([expect.stringMatching(/unknown tool "read_files"\. Did you mean `read_file`\?/)]);
      expect(run.record.find((message) => message.role === 'assistant')).toMatchObject({ tool_calls: [{ function: { name: 'read_files' } }] });
      expect(run.lines('calls_recovered')[0]).toMatchObject({ shapes: [shape], raw: expect.stringContaining('read_files') });
    },
  );
});

describe('argument repair switched off (model.repairArguments: false)', () => {
  it('a bent argument goes to the tool as sent: a tool error with the JSON position, no repair line, no crash', async () => {
    const run = await runScripted({
      files,
      testCmd,
      rules: { ...rules, model: { repairArguments: false }, budgets: { maxSteps: 1 } },
      script: [reply(mangledCall('read_file', { path: 'add.js' }, 'trailing-comma'))],
    });
    expect(run.lines('arguments_repaired')).toEqual([]);
    const results = run.record.filter((message) => message.role === 'tool').map((message) => String(message.content));
    expect(results[0]).toMatch(/not valid JSON at line 1, column 18/);
  });
});

describe('errors the model can act on', () => {
  it('an unknown tool gets the nearest name, a missing argument the tool’s schema, a hopeless JSON its position', async () => {
    const run = await runScripted({
      files,
      testCmd,
      rules: { ...rules, budgets: { maxSteps: 1 } },
      script: [reply(call('read_files', { path: 'add.js' }), call('read_file', {}), call('read_file', '{"path": "add.js", :}'))],
    });
    const results = run.record.filter((message) => message.role === 'tool').map((message) => message.content);
    expect(results[0]).toMatch(/unknown tool "read_files"\. Did you mean `read_file`\? Available tools: read_file, grep/);
    expect(results[1]).toMatch(/missing required argument `path`.*Parameters of read_file: \{.*"path":\{[^}]*"type":"string"\}.*"required":\["path"\]/);
    expect(results[2]).toMatch(/not valid JSON at line 1, column 20/);
  });
});
