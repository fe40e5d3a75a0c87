import { afterEach, describe, expect, it } from 'vitest';
import { removeTempDirs, runScripted } from '../../testing/index.js';
import { toEntry } from '../../visualizer/page/entries.js';
import { filterOf } from '../../visualizer/page/event-filters.js';
import { describeEntry } from '../../visualizer/page/event-format.js';

afterEach(() => removeTempDirs());

describe('the visualizer shows calls recovered from text', () => {
  it('the model row names the shape, and the recovery and repair lines read as model events', async () => {
    const run = await runScripted({
      files: { 'a.txt': 'a\n' },
      testCmd: 'true',
      rules: { budgets: { maxSteps: 1 } },
      script: [{ content: `Reading.\n<tool_call>{'name': 'read_file', 'arguments': {'path': 'a.txt',}}</tool_call>` }],
    });
    const rows = run.trace.map((line, index) => {
      const entry = toEntry(line, index);
      return { kind: entry.kind, filter: filterOf(entry), row: describeEntry(entry, null) };
    });
    const model = rows.find((row) => row.kind === 'model')!;
    expect(model.row.text).toContain('→ read_file (recovered from text: <tool_call>+json)');
    expect(rows.find((row) => row.kind === 'calls_recovered')).toMatchObject({
      filter: 'model',
      row: { badge: 'recovered', text: 'read_file recovered from text (<tool_call>+json)' },
    });
    // rein gave the call its id (the model wrote none), and says so beside the provider's.
    expect(rows.find((row) => row.kind === 'call_ids')).toMatchObject({ filter: 'model', row: { badge: 'ids', text: 'ids: (none) → call_1_0 (missing)' } });
    expect(rows.find((row) => row.kind === 'arguments_repaired')).toMatchObject({ filter: 'model', row: { badge: 'repaired' } });
    expect(rows.find((row) => row.kind === 'arguments_repaired')!.row.title).toContain("'path'");
  });

  it('a call that was not run says so, and why', async () => {
    const run = await runScripted({
      files: { 'a.txt': 'a\n' },
      testCmd: 'true',
      rules: { budgets: { maxSteps: 1 } },
      script: [{ content: '<think>\n<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"}}</tool_call>\n</think>\nLooking first.' }],
    });
    const entry = run.trace.map((line, index) => toEntry(line, index)).find((candidate) => candidate.kind === 'calls_recovered')!;
    expect(describeEntry(entry, null).text).toBe('not run: read_file (reasoning)');
  });

  it('a reply without recovered calls says nothing about text', async () => {
    const run = await runScripted({
      files: { 'a.txt': 'a\n' },
      testCmd: 'true',
      rules: { budgets: { maxSteps: 1 } },
      script: [{ content: 'I would call <tool_call> next, once I know which file.' }],
    });
    const model = run.trace.map((line, index) => toEntry(line, index)).find((entry) => entry.kind === 'model')!;
    expect(describeEntry(model, null).text).not.toContain('recovered');
  });
});
