import { linkSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyRewind, materialiseStep, planRewind } from '../../../run/snapshots/rewind.js';
import { call, makeTempDir, reply, runScripted } from '../../../testing/index.js';

let previousState: string | undefined;
beforeAll(() => {
  previousState = process.env.XDG_STATE_HOME;
  process.env.XDG_STATE_HOME = makeTempDir('rein-test-state-');
});
afterAll(() => {
  if (previousState === undefined) delete process.env.XDG_STATE_HOME;
  else process.env.XDG_STATE_HOME = previousState;
});

// docs/rewind-and-fork.md lists it among what a rewind does not restore: each path's bytes and mode come back, the
// sharing of one file between hard-linked paths does not. This pins that behaviour.
describe('hard links in a rewound workspace', () => {
  it('come back as separate files with the right bytes: the link between them is not restored', async () => {
    const workspace = makeTempDir('rein-test-ws-');
    mkdirSync(join(workspace, 'd'));
    writeFileSync(join(workspace, 'a.txt'), 'shared bytes\n');
    linkSync(join(workspace, 'a.txt'), join(workspace, 'd', 'b.txt'));
    const run = await runScripted({
      workspace,
      testCmd: 'true',
      // Writing through one name changes both (one file); then the step is undone.
      script: [reply(call('run', { command: 'printf changed > a.txt' })), reply(call('finish', { summary: 'done' }))],
    });
    expect(readFileSync(join(workspace, 'd', 'b.txt'), 'utf8')).toBe('changed');
    const report = applyRewind(planRewind(run.runDir, 0));
    expect(report.failed).toEqual([]);
    expect(readFileSync(join(workspace, 'a.txt'), 'utf8')).toBe('shared bytes\n');
    expect(readFileSync(join(workspace, 'd', 'b.txt'), 'utf8')).toBe('shared bytes\n');
    const a = statSync(join(workspace, 'a.txt'));
    const b = statSync(join(workspace, 'd', 'b.txt'));
    expect(a.ino).not.toBe(b.ino);
    expect([a.nlink, b.nlink]).toEqual([1, 1]);

    const out = join(makeTempDir('rein-test-out-'), 'start');
    expect(materialiseStep(run.runDir, 0, out).report.failed).toEqual([]);
    expect(statSync(join(out, 'a.txt')).ino).not.toBe(statSync(join(out, 'd', 'b.txt')).ino);
    expect(readFileSync(join(out, 'd', 'b.txt'), 'utf8')).toBe('shared bytes\n');
  }, 60_000);
});
