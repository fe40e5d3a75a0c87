import { cpSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractiveSummary } from '../../actors/summarizer.js';
import { hasSavedState, loadState, type SavedState, saveState } from '../../run/record/state-file.js';
import { readRecord } from '../../run/record/transcript.js';
import { resumeRun } from '../../run/start-run.js';
import { call, createScriptedModel, reply, rulesSchema, type ScriptedReply } from '../../testing/index.js';
import { repoRoot } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

// A run's state is saved every step without renaming over the old file (ext4 writes a file renamed over another out at
// once): the old one is removed first. These are the moments a kill -9 can leave, each read back whole.

const state = (step: number) => ({ version: 4, savedAt: '', elapsedMs: step, recordLength: step, snapshot: { step } }) as unknown as SavedState;

/** The run directory and workspace a format-2 run killed mid-step left (test/fixtures/state-v2), copied. */
function killedRun(): { runDir: string; workspace: string } {
  const runDir = makeTempDir('rein-killed-run-');
  const workspace = makeTempDir('rein-killed-ws-');
  cpSync(join(repoRoot, 'test/fixtures/state-v2/run'), runDir, { recursive: true });
  cpSync(join(repoRoot, 'test/fixtures/state-v2/workspace'), workspace, { recursive: true });
  return { runDir, workspace };
}

/** That run resumed with a scripted model, to its end. */
async function resumeKilled(dirs: { runDir: string; workspace: string }, script: ScriptedReply[]) {
  const model = createScriptedModel(script);
  const run = await resumeRun({
    ...dirs,
    task: 'Write one.txt and two.txt, then finish.',
    testCmd: 'true',
    rules: rulesSchema.parse({ phases: { plan: { enabled: false } } }),
    model: { name: 'scripted', description: 'scripted', createActor: () => model.actor, summarize: extractiveSummary },
    fsync: false,
  });
  return run.done;
}

describe('the state file across a kill at any moment of a save', () => {
  it('saved twice without fsync: the newest is read, and no temp file is left', () => {
    const path = join(makeTempDir('rein-state-'), 'state.json');
    saveState(path, state(1), { fsync: false });
    saveState(path, state(2), { fsync: false });
    expect(loadState(path).elapsedMs).toBe(2);
    expect(existsSync(`${path}.tmp`)).toBe(false);
  });

  it('killed while the temp file was written: the old state is read, the half-written one never', () => {
    const path = join(makeTempDir('rein-state-'), 'state.json');
    saveState(path, state(1), { fsync: false });
    writeFileSync(`${path}.tmp`, JSON.stringify(state(2)).slice(0, 20));
    expect(loadState(path).elapsedMs).toBe(1);
    saveState(path, state(3), { fsync: false });
    expect(loadState(path).elapsedMs).toBe(3);
  });

  it('killed between removing the old state and the rename: the new one is read from the temp file, and the next save keeps it until it is replaced', () => {
    const path = join(makeTempDir('rein-state-'), 'state.json');
    saveState(path, state(1), { fsync: false });
    renameSync(path, `${path}.tmp`);
    expect(hasSavedState(path)).toBe(true);
    expect(loadState(path).elapsedMs).toBe(1);
    saveState(path, state(2), { fsync: false });
    expect(loadState(path).elapsedMs).toBe(2);
    expect(existsSync(`${path}.tmp`)).toBe(false);
    expect(hasSavedState(join(makeTempDir('rein-state-'), 'state.json'))).toBe(false);
  });

  it('killed in that moment and then again while the next save writes: the state from before is still read', () => {
    const path = join(makeTempDir('rein-state-'), 'state.json');
    saveState(path, state(1), { fsync: false });
    renameSync(path, `${path}.tmp`);
    // A state that cannot be written stops the save after the temp file was opened, as a kill there would.
    const unwritable = { ...state(2), snapshot: { step: 2n } } as unknown as SavedState;
    expect(() => saveState(path, unwritable, { fsync: false })).toThrow();
    expect(loadState(path).elapsedMs).toBe(1);
  });

  it('a run killed in that moment resumes from the temp file and finishes', async () => {
    const { runDir, workspace } = killedRun();
    renameSync(join(runDir, 'state.json'), join(runDir, 'state.json.tmp'));
    const output = await resumeKilled({ runDir, workspace }, [
      reply(call('run', { command: 'true' })),
      reply(call('finish', { summary: 'both files written' })),
    ]);
    expect(output).toMatchObject({ status: 'done', steps: 4 });
    expect(readFileSync(join(workspace, 'two.txt'), 'utf8')).toBe('two\n');
    expect(existsSync(join(runDir, 'state.json.tmp'))).toBe(false);
  });

  it("the run's call ids are read back from the record, not kept in the state: an id from before the kill is not given again", async () => {
    const { runDir, workspace } = killedRun();
    // The killed run's record holds call_1_0 and call_2_0; a provider that numbers its calls afresh sends call_1_0 again.
    const output = await resumeKilled({ runDir, workspace }, [
      reply(call('run', { command: 'true' }, 'call_1_0')),
      reply(call('finish', { summary: 'done' }, 'call_2_0')),
    ]);
    expect(output).toMatchObject({ status: 'done' });
    const ids = readRecord(join(runDir, 'record.jsonl')).flatMap((message) =>
      message.role === 'assistant' ? (message.tool_calls ?? []).map((toolCall) => toolCall.id) : [],
    );
    expect(ids.slice(0, 2)).toEqual(['call_1_0', 'call_2_0']);
    expect(new Set(ids).size).toBe(ids.length);
    const saved = loadState(join(runDir, 'state.json')).snapshot as { context: Record<string, unknown> };
    expect('callIds' in saved.context).toBe(false);
  });
});
