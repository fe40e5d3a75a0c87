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

const inode = (path: string) => statSync(path).ino;

describe('hard links in a rewound workspace', () => {
  it('come back as one file under each of its names, after the step broke the link and rewrote one name', async () => {
    const workspace = makeTempDir('rein-test-ws-');
    mkdirSync(join(workspace, 'd'));
    writeFileSync(join(workspace, 'a.txt'), 'shared bytes\n');
    linkSync(join(workspace, 'a.txt'), join(workspace, 'd', 'b.txt'));
    linkSync(join(workspace, 'a.txt'), join(workspace, 'd', 'c.txt'));
    const run = await runScripted({
      workspace,
      testCmd: 'true',
      script: [
        // Through one name, then apart: a.txt a file of its own, c.txt a copy, b.txt still the shared file.
        reply(call('run', { command: 'printf changed > a.txt && cp a.txt new.txt && rm a.txt && printf own > a.txt && cp d/c.txt c2 && mv c2 d/c.txt' })),
        reply(call('finish', { summary: 'done' })),
      ],
    });
    expect(inode(join(workspace, 'a.txt'))).not.toBe(inode(join(workspace, 'd', 'b.txt')));
    expect(readFileSync(join(workspace, 'd', 'b.txt'), 'utf8')).toBe('changed');
    const report = applyRewind(planRewind(run.runDir, 0));
    expect(report.failed).toEqual([]);
    for (const name of ['a.txt', 'd/b.txt', 'd/c.txt']) expect(readFileSync(join(workspace, name), 'utf8')).toBe('shared bytes\n');
    expect(inode(join(workspace, 'd', 'b.txt'))).toBe(inode(join(workspace, 'a.txt')));
    expect(inode(join(workspace, 'd', 'c.txt'))).toBe(inode(join(workspace, 'a.txt')));
    expect(statSync(join(workspace, 'a.txt')).nlink).toBe(3);
    // A write through one name shows through the others again.
    writeFileSync(join(workspace, 'd', 'c.txt'), 'one file\n');
    expect(readFileSync(join(workspace, 'a.txt'), 'utf8')).toBe('one file\n');

    const out = join(makeTempDir('rein-test-out-'), 'start');
    expect(materialiseStep(run.runDir, 0, out).report.failed).toEqual([]);
    expect(inode(join(out, 'd', 'b.txt'))).toBe(inode(join(out, 'a.txt')));
    expect(readFileSync(join(out, 'd', 'b.txt'), 'utf8')).toBe('shared bytes\n');
    // Step 1's workspace: no links left but the one b.txt had with nothing (it is alone now).
    const stepOne = join(makeTempDir('rein-test-out-'), 'one');
    expect(materialiseStep(run.runDir, 1, stepOne).report.failed).toEqual([]);
    expect(statSync(join(stepOne, 'd', 'b.txt')).nlink).toBe(1);
    expect(readFileSync(join(stepOne, 'a.txt'), 'utf8')).toBe('own');
  }, 60_000);
});
