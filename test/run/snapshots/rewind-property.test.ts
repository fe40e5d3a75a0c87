import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSnapshotIndex } from '../../../run/record/snapshot-index.js';
import { loadState } from '../../../run/record/state-file.js';
import { applyRewind, materialiseStep, planRewind } from '../../../run/snapshots/rewind.js';
import { call, makeTempDir, reply, runScripted } from '../../../testing/index.js';
import { writeFiles } from '../../helpers/workspace.js';
import { TREE_HASH_SCRIPT, treeHash } from './tree-hash.js';

const PATHS = ['a', 'b', 'd/c', 'd/e/f', 'x y'];
const path = fc.constantFrom(...PATHS);
const quote = (text: string) => `'${text}'`;
const parentOf = (p: string) => (p.includes('/') ? `mkdir -p ${quote(p.slice(0, p.lastIndexOf('/')))} 2>/dev/null; ` : '');

/** Commands a step may run: every kind of change a shell makes to a tree. Each may fail (a missing source); the hash records what happened. */
const operation = fc.oneof(
  fc.tuple(path, fc.string({ maxLength: 12 })).map(([p, text]) => `${parentOf(p)}rm -rf ${quote(p)}; printf %s ${quote(text.replace(/'/g, ''))} > ${quote(p)}`),
  fc
    .tuple(path, fc.uint8Array({ minLength: 1, maxLength: 8 }))
    .map(([p, bytes]) => `${parentOf(p)}rm -rf ${quote(p)}; printf '${[...bytes].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('')}' > ${quote(p)}`),
  path.map((p) => `rm -rf ${quote(p)}`),
  fc.tuple(path, path).map(([from, to]) => `${parentOf(to)}mv -f ${quote(from)} ${quote(to)} 2>/dev/null`),
  // Modes that keep the owner's read and search: the hash printed inside the sandbox (no capabilities) must see what a host user sees.
  fc.tuple(path, fc.constantFrom('go-rwx', 'go+rx', 'u-w', 'u+w', 'g+w', 'o-r')).map(([p, mode]) => `chmod ${mode} ${quote(p)} 2>/dev/null`),
  fc
    .tuple(path, fc.constantFrom('a', '../a', '/etc/passwd', '../../outside', 'missing'))
    .map(([p, target]) => `${parentOf(p)}rm -rf ${quote(p)}; ln -s ${target} ${quote(p)}`),
  path.map((p) => `${parentOf(p)}rm -rf ${quote(p)}; mkdir -p ${quote(p)}; printf inner > ${quote(`${p}/inner`)}`),
  fc.constantFrom('chmod 700 d 2>/dev/null', 'chmod 755 d 2>/dev/null'),
  // Hard links: two names of one file (a rewind makes them one file again).
  fc.tuple(path, path).map(([from, to]) => `${parentOf(to)}ln -f ${quote(from)} ${quote(to)} 2>/dev/null`),
);

let previousState: string | undefined;
beforeAll(() => {
  previousState = process.env.XDG_STATE_HOME;
  process.env.XDG_STATE_HOME = makeTempDir('rein-test-state-');
});
afterAll(() => {
  if (previousState === undefined) delete process.env.XDG_STATE_HOME;
  else process.env.XDG_STATE_HOME = previousState;
});

/** The tree hash each step's command printed, by step, in the record's first `length` messages. */
function printedHashes(runDir: string, length = Number.POSITIVE_INFINITY): Map<number, string> {
  const hashes = new Map<number, string>();
  let step = 0;
  const lines = readFileSync(join(runDir, 'record.jsonl'), 'utf8').split('\n').filter(Boolean);
  for (const line of lines.slice(0, length)) {
    const message = JSON.parse(line) as { role: string; content?: string };
    if (message.role === 'assistant') step++;
    const found = message.role === 'tool' ? /TREE ([0-9a-f]{64})/.exec(message.content ?? '') : null;
    if (found) hashes.set(step, found[1]!);
  }
  return hashes;
}

describe('rewinding a real run to any step', () => {
  it('gives the byte-identical workspace and the chart state of that step, for random shell changes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 2, maxLength: 6 }), async (operations) => {
        const workspace = makeTempDir('rein-test-ws-');
        writeFiles(workspace, { a: 'start\n', 'd/c': 'c\n', 'keep.bin': '\u0000\u0001' });
        const initial = treeHash(workspace);
        const run = await runScripted({
          workspace,
          testCmd: 'true',
          script: [...operations.map((op) => reply(call('run', { command: `${op}; ${TREE_HASH_SCRIPT}` }))), reply(call('finish', { summary: 'done' }))],
        });
        const hashes = new Map([[0, initial], ...printedHashes(run.runDir)]);
        expect(hashes.size).toBe(operations.length + 1);
        const steps = readSnapshotIndex(run.runDir).map((line) => line.step);
        expect(steps).toEqual([...Array(operations.length + 2).keys()]);
        // Backwards and then forwards again: every step is reachable from every later and earlier one.
        const order = [...[...hashes.keys()].reverse(), ...hashes.keys()];
        for (const step of order) {
          const plan = planRewind(run.runDir, step);
          const report = applyRewind(plan);
          expect(report.failed).toEqual([]);
          expect(treeHash(run.workspace), `workspace at step ${step}`).toBe(hashes.get(step));
          const state = loadState(join(run.runDir, 'state.json'));
          const context = (state.snapshot as { context: { step: number; recordLength: number } }).context;
          expect(context.step).toBe(step);
          // The chart's record ends with this step's result: the chart and the workspace are of the same moment.
          const seen = printedHashes(run.runDir, context.recordLength);
          expect(seen.size).toBe(step);
          if (step > 0) expect(seen.get(step)).toBe(hashes.get(step));
          const out = makeTempDir('rein-test-out-');
          expect(materialiseStep(run.runDir, step, out).report.failed).toEqual([]);
          expect(treeHash(out), `--out at step ${step}`).toBe(hashes.get(step));
        }
      }),
      { numRuns: 6 },
    );
  }, 240_000);
});
