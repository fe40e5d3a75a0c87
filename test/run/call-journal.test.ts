import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ToolCallResult } from '../../machines/types.js';
import { openCallJournal } from '../../run/record/call-journal.js';
import { makeTempDir } from '../helpers/workspace.js';

const result = (step: number): ToolCallResult => ({
  id: `call_${step}`,
  name: 'run',
  args: { command: 'make' },
  outcome: { content: `output ${step}\n`.repeat(200), ok: true, effect: { kind: 'none' } },
  ms: 1,
});

describe('the call journal', () => {
  it("keeps every result on disk but only the step in progress in memory; a reopened journal finds the newest step's calls", () => {
    const file = path.join(makeTempDir(), 'calls.jsonl');
    const journal = openCallJournal(file);
    for (let step = 1; step <= 1000; step++) {
      journal.start!(`${step}:0`);
      journal.put(`${step}:0`, result(step));
      journal.put(`${step}:1`, result(step));
    }
    expect(journal.get('1000:1')).toEqual(result(1000));
    // Steps only move forward: a finished step is never asked for again, so its results are not held.
    expect(journal.get('999:0')).toBeUndefined();
    journal.start!('1001:0');
    journal.close();
    expect(fs.readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(3000 + 1);
    const reopened = openCallJournal(file);
    expect(reopened.get('1000:0')).toEqual(result(1000));
    expect(reopened.wasStarted!('1001:0')).toBe(true);
    expect(reopened.get('1001:0')).toBeUndefined();
    reopened.close();
  });
});
