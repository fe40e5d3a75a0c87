import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarize } from '../../../cli/replay/summary.js';
import { createReplayer, type RecordedRun, type RecordedStep, replayRun } from '../../../testing/index.js';

const oldDefaults = JSON.parse(
  (await import('node:fs')).readFileSync(join(import.meta.dirname, '..', '..', '..', 'cli', 'replay', 'rules', 'rein-0.1.0-stall.json'), 'utf8'),
) as object;

const read = (path: string, start: number, text: string): RecordedStep => ({ tool: 'read_file', args: { path, start }, output: text });
const grep = (pattern: string, text: string): RecordedStep => ({ tool: 'grep', args: { pattern }, output: text });
const edit = (path: string, old: string, next: string): RecordedStep => ({
  tool: 'edit_file',
  args: { path, old, new: next },
  output: 'edited',
  edit: { applied: true, kind: 'replace' },
});
const run = (steps: RecordedStep[], extra: Partial<RecordedRun> = {}): RecordedRun => ({ id: 'r', resolved: true, steps, ...extra });

// The case (mini-swe-agent on astropy-13453): eight different greps and reads across two files, each showing
// something new, then the edit that fixes the task.
const exploration = run([
  grep('class HTML', 'html.py:66: class HTMLInputter'),
  read('html.py', 254, 'class HTML(core.BaseReader):'),
  grep('formats', 'core.py:768: formats = {}'),
  read('core.py', 1480, 'lines : list'),
  read('core.py', 934, 'def _set_col_formats(self):'),
  read('html.py', 215, 'class HTMLData(core.BaseData):'),
  grep('self.data.header.cols = cols', 'html.py:351: self.data.header.cols = cols'),
  read('html.py', 340, 'def write(self, table):'),
  edit('html.py', 'self.data.header.cols = cols', 'self.data.header.cols = cols\n        self.data._set_col_formats()'),
]);

describe('replayRun: recorded runs open loop through the real machine (testing/replay-run.ts)', () => {
  it('only looks like a loop: the old count nudged the eighth new read, while the agent was learning; the novelty rules do not', () => {
    const before = replayRun(exploration, { rules: oldDefaults });
    expect(before.nudges.map((nudge) => [nudge.rule, nudge.index, nudge.learning])).toEqual([['longExploration', 7, true]]);
    expect(before.nudges[0]!.novelty).toEqual({ fresh: 8, window: 8 });
    expect(replayRun(exploration).nudges).toEqual([]);
  });

  it('is a loop: reading the same three pages again is nudged, tied to the read that did it, and ended; the stop says what it saves', () => {
    const pages = Array.from({ length: 30 }, (_, index) => read('app.py', (index % 3) * 100 + 1, `page ${index % 3}`));
    const result = replayRun(run(pages, { resolved: false, exitStatus: 'cost_limit' }));
    expect(result.nudges[0]).toMatchObject({ rule: 'readLoop', index: 7, learning: false });
    expect(result.status).toBe('stalled');
    expect(result.stop!.reason).toMatch(/^readLoop: /);
    expect(result.savedActions).toBe(30 - (result.stop!.index + 1));
    const summary = summarize([result]);
    expect(summary).toMatchObject({ stopped: 1, falseStops: 0, limitRunsStopped: 1, savedActions: result.savedActions });
  });

  it('an edit undone and redone is edit thrash, reconstructed from the edits alone', () => {
    const thrash = Array.from({ length: 8 }, (_, index) => (index % 2 ? edit('a.py', 'y', 'x') : edit('a.py', 'x', 'y')));
    expect(replayRun(run(thrash)).nudges.map((nudge) => nudge.rule)[0]).toBe('editThrash');
    const forward = Array.from({ length: 8 }, (_, index) => edit('a.py', `v${index}`, `v${index + 1}`));
    expect(replayRun(run(forward)).nudges).toEqual([]);
  });

  it('with trace: true the run comes back as trace lines the visualizer reads, the nudge among them', () => {
    const replayer = createReplayer({ rules: oldDefaults, trace: true });
    const result = replayer.replay(exploration);
    const kinds = new Set(result.trace!.map((line) => line.kind));
    expect([...kinds].sort()).toEqual(['call_ids', 'model', 'progress', 'stall', 'tool', 'transition']);
    expect(result.trace!.find((line) => line.kind === 'stall')).toMatchObject({ rule: 'longExploration', count: 8 });
  });
});
