import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openObjectStore } from '../../../lib/snapshots/object-store.js';
import { flattenTree } from '../../../lib/snapshots/tree-format.js';
import { readSnapshotIndex } from '../../../run/record/snapshot-index.js';
import { call, reply, runScripted, type ScriptedReply } from '../../../testing/index.js';
import { makeTempDir } from '../../helpers/workspace.js';

// A step whose calls only read keeps the last snapshot's tree instead of scanning the workspace. These runs show it
// does (a write rein cannot know of is not in a read-only step's snapshot, and is in the next scanned one), and that
// every way the workspace changes without a writing call still gets scanned: a background job, a hook.

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A run whose n-th reply is `replies[n]`, each given only once the snapshot of every step before it is indexed (so
 * whatever `before` does happens after that scan, not during it).
 */
async function runSteps(replies: { before?: (workspace: string) => Promise<void> | void; answer: ScriptedReply }[], settings: Record<string, unknown> = {}) {
  const workspace = makeTempDir('rein-ro-steps-ws-');
  const runDir = makeTempDir('rein-ro-steps-run-');
  let asked = 0;
  await runScripted({
    workspace,
    runDir,
    files: { 'a.txt': 'zero\n' },
    testCmd: 'true',
    rules: { verification: { gate: false }, phases: { plan: { enabled: false } }, ...settings },
    script: async () => {
      const next = replies[asked++]!;
      while (readSnapshotIndex(runDir).length < asked) await sleep(5);
      await next.before?.(workspace);
      return next.answer;
    },
  });
  const index = readSnapshotIndex(runDir);
  const store = openObjectStore(index[0]!.store);
  /** The names in each snapshot, in step order. */
  const names = index.map((line) => [...flattenTree(store, line.tree).keys()].filter((name) => !name.startsWith('.rein')).sort());
  return { index, names, workspace };
}

const run = (command: string, extra: Record<string, unknown> = {}) => reply(call('run', { command, ...extra }));
const finish = { answer: reply(call('finish', { summary: 'done' })) };

describe('a step that only read keeps the last snapshot', () => {
  it('a file written outside the run is not in a read-only step’s snapshot, and is in the next step that wrote', async () => {
    const { names } = await runSteps([
      { answer: run('echo one > b.txt') },
      { before: (workspace) => writeFileSync(join(workspace, 'outside.txt'), 'x'), answer: run('cat a.txt b.txt | head -5 && ls -la') },
      { answer: reply(call('read_file', { path: 'a.txt' }), call('grep', { pattern: 'one' })) },
      { answer: run('echo two >> b.txt') },
      finish,
    ]);
    expect(names[1]).toEqual(['a.txt', 'b.txt']);
    // Steps 2 and 3 only read: the scan was not run, so the file no call wrote is not there yet.
    expect(names[2]).toEqual(['a.txt', 'b.txt']);
    expect(names[3]).toEqual(['a.txt', 'b.txt']);
    expect(names[4]).toEqual(['a.txt', 'b.txt', 'outside.txt']);
  });

  it('a background job that writes after its step is caught, by the steps while it runs and the first after it ended', async () => {
    const { names } = await runSteps([
      { answer: run('sleep 1.5; echo late > late.txt', { background: true }) },
      { answer: run('cat a.txt') },
      { before: () => sleep(2500), answer: run('cat a.txt') },
      finish,
    ]);
    expect(names[2]).not.toContain('late.txt');
    expect(names[3]).toContain('late.txt');
  });

  it('a hook may write (without a sandbox, hooks run on the host): a read-only step with hooks is scanned', async () => {
    const { names, workspace } = await runSteps([{ answer: run('cat a.txt') }, finish], {
      permissions: { sandbox: 'none' },
      hooks: { PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo hooked > hooked.txt' }] }] },
    });
    expect(existsSync(join(workspace, 'hooked.txt'))).toBe(true);
    expect(names[1]).toContain('hooked.txt');
  });

  it('a command that deletes by an option of a read-only program is scanned', async () => {
    const { names } = await runSteps([{ answer: run('echo x > b.txt') }, { answer: run('find . -name b.txt -delete') }, finish]);
    expect(names[1]).toEqual(['a.txt', 'b.txt']);
    expect(names[2]).toEqual(['a.txt']);
  });
});
