import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRuns } from '../../../cli/replay/load-runs.js';
import { call, replayRun, reply, runScripted } from '../../../testing/index.js';
import { makeTempDir } from '../../helpers/workspace.js';

describe("rein's own traces replayed", () => {
  it('a live run that loops is replayed from its trace to the same nudges and the same stop', async () => {
    // A real run with real tools: the model lists, reads a file, then reads the same page again and again.
    const script = [
      reply(call('run', { command: 'ls' })),
      reply(call('read_file', { path: 'app.py' })),
      ...Array.from({ length: 30 }, () => reply(call('read_file', { path: 'app.py' }))),
    ];
    const live = await runScripted({ files: { 'app.py': 'print(1)\n' }, testCmd: 'python3 -m pytest -q', script, rules: { budgets: { maxSteps: 40 } } });
    expect(live.output.status).toBe('stalled');
    const liveNudges = live.lines('stall').map((line) => [line.rule, line.step]);
    const file = join(makeTempDir('rein-replay-trace-'), 'trace.jsonl');
    writeFileSync(file, live.trace.map((line) => JSON.stringify(line)).join('\n') + '\n');
    const { runs, formats } = loadRuns(file);
    expect(formats).toEqual({ 'rein-trace': 1 });
    expect(runs[0]).toMatchObject({ resolved: false, exitStatus: 'stalled', testCmd: 'python3 -m pytest -q' });
    const replayed = replayRun(runs[0]!);
    expect(replayed.nudges.map((nudge) => [nudge.rule, nudge.step])).toEqual(liveNudges);
    expect(replayed.status).toBe('stalled');
    expect(replayed.stop!.step).toBe(live.output.steps);
  });
});
