import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { call, removeTempDirs, reply, runScripted } from '../../testing/index.js';
import { relatedRunPage } from '../../visualizer/server/related-runs.js';
import { useTempStateDir } from '../helpers/trust.js';

afterEach(() => removeTempDirs());
useTempStateDir();

const finishing = () => runScripted({ rules: { verification: { gate: false } }, script: [reply(call('finish', { summary: 'done' }))] });
const pageOf = (served: string, wanted: string) => relatedRunPage(() => served)(new URLSearchParams({ run: wanted, step: '0' }));

// forks.jsonl and a run directory inside a workspace are writable by the agent's commands: the page's fork links
// follow only what a run.json rein wrote says.
describe('the runs a served page may open by fork links (visualizer/server/related-runs.ts)', () => {
  it('opens no run that a planted forks.jsonl line names', async () => {
    const [served, other] = [await finishing(), await finishing()];
    appendFileSync(join(served.runDir, 'forks.jsonl'), `${JSON.stringify({ runDir: other.runDir, step: 0, at: 'now' })}\n`);
    expect(await pageOf(served.runDir, other.runDir)).toBeNull();
  });

  it('opens no run that a changed forkOf in run.json names', async () => {
    const [served, other] = [await finishing(), await finishing()];
    const meta = join(served.runDir, 'run.json');
    writeFileSync(meta, JSON.stringify({ ...JSON.parse(readFileSync(meta, 'utf8')), forkOf: { runDir: other.runDir, step: 0 } }));
    expect(await pageOf(served.runDir, other.runDir)).toBeNull();
  });

  it('opens the served run itself', async () => {
    const served = await finishing();
    expect(await pageOf(served.runDir, served.runDir)).toContain('<html');
  });
});
