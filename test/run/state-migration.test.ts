import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractiveSummary } from '../../actors/summarizer.js';
import type { TraceRecord } from '../../lib/trace/trace-events.js';
import { readJsonLines } from '../../run/record/jsonl.js';
import { loadState, STATE_VERSION } from '../../run/record/state-file.js';
import { readRecord } from '../../run/record/transcript.js';
import { type RunOptions, resumeRun } from '../../run/start-run.js';
import { call, createScriptedModel, reply, rulesSchema, type Script } from '../../testing/index.js';
import { repoRoot } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

/** The run directory and workspace the rein of commit feb7bd6 left (state format 2; see the fixture's README.md). */
const FIXTURE = join(repoRoot, 'test/fixtures/state-v2');

function copyFixture() {
  const runDir = makeTempDir('rein-v2-run-');
  const workspace = makeTempDir('rein-v2-ws-');
  cpSync(join(FIXTURE, 'run'), runDir, { recursive: true });
  cpSync(join(FIXTURE, 'workspace'), workspace, { recursive: true });
  return { runDir, workspace };
}

function options(dirs: { runDir: string; workspace: string }, script: Script, rules = rulesSchema.parse({ phases: { plan: { enabled: false } } })): RunOptions {
  const model = createScriptedModel(script);
  return {
    ...dirs,
    task: 'Write one.txt and two.txt, then finish.',
    testCmd: 'true',
    rules,
    model: { name: 'scripted', description: 'scripted', createActor: () => model.actor, summarize: extractiveSummary },
    fsync: false,
  };
}

describe('state files of older rein versions (run/record/state-migration.ts)', () => {
  it('a run saved in format 2 by the old code resumes: its executed calls are not run again, the run finishes, the state is saved in the current format', async () => {
    const dirs = copyFixture();
    expect((JSON.parse(readFileSync(join(dirs.runDir, 'state.json'), 'utf8')) as { version: number }).version).toBe(2);
    const run = await resumeRun(options(dirs, [reply(call('run', { command: 'true' })), reply(call('finish', { summary: 'both files written' }))]));
    const output = await run.done;
    expect(output).toMatchObject({ status: 'done', summary: 'both files written', steps: 4 });
    // Step 2's calls came from the journal the old run wrote: two.txt got its line once.
    expect(readFileSync(join(dirs.workspace, 'two.txt'), 'utf8')).toBe('two\n');
    expect(readFileSync(join(dirs.workspace, 'one.txt'), 'utf8')).toBe('one\n');
    const record = readRecord(join(dirs.runDir, 'record.jsonl'));
    expect(record.filter((message) => message.role === 'tool').map((message) => String(message.content).split('\n')[0])).toEqual([
      'exit=0',
      'exit=0',
      expect.stringContaining('notes.txt'),
      'exit=0',
      'Finished.',
    ]);
    const trace = readJsonLines<TraceRecord>(join(dirs.runDir, 'trace.jsonl')).values;
    expect(trace.find((line) => line.kind === 'resume')).toMatchObject({ fromState: 'build.act' });
    expect(trace.at(-1)).toMatchObject({ kind: 'end', status: 'done' });
    expect(loadState(join(dirs.runDir, 'state.json')).version).toBe(STATE_VERSION);
    expect((JSON.parse(readFileSync(join(dirs.runDir, 'state.json'), 'utf8')) as { version: number }).version).toBe(STATE_VERSION);
  });

  it('the migration fills what format 2 lacked and keeps what it had', () => {
    const dirs = copyFixture();
    const old = JSON.parse(readFileSync(join(dirs.runDir, 'state.json'), 'utf8')) as { snapshot: { context: Record<string, unknown> } };
    expect(old.snapshot.context.approvals).toBeUndefined();
    const migrated = loadState(join(dirs.runDir, 'state.json')) as unknown as { snapshot: { value: unknown; context: Record<string, unknown> } };
    expect(migrated.snapshot.value).toEqual({ build: 'act' });
    expect(migrated.snapshot.context).toMatchObject({
      step: 2,
      phase: 'build',
      previousPhase: 'build',
      heldResults: null,
      approvals: { pending: null, decided: {}, remembered: [], hooked: {} },
      facts: { ...(old.snapshot.context.facts as object), editedPaths: [], commandPasses: {} },
    });
  });

  it('formats that cannot be migrated, and states the chart does not have, are clear errors that name the file', async () => {
    const dirs = copyFixture();
    const statePath = join(dirs.runDir, 'state.json');
    const text = readFileSync(statePath, 'utf8');
    const withVersion = (version: unknown) => writeFileSync(statePath, text.replace('"version":2', `"version":${JSON.stringify(version)}`));
    withVersion(1);
    expect(() => loadState(statePath)).toThrow(/state\.json: state format 1 .*cannot be migrated \(this rein reads 2 to \d\)/);
    withVersion(STATE_VERSION + 1);
    expect(() => loadState(statePath)).toThrow(/saved by a newer rein \(state format \d+/);
    withVersion('two');
    expect(() => loadState(statePath)).toThrow(/not a rein state file \(its "version" is "two"\)/);
    writeFileSync(statePath, '{"version": 2, "snap');
    expect(() => loadState(statePath)).toThrow(/state\.json: not JSON .*damaged/);
    // A state the chart built from these rules does not have (the plan phase is on now, build's act state is there;
    // a phase the rules leave out is not).
    writeFileSync(statePath, text.replace('{"build":"act"}', '{"review_board":"act"}'));
    await expect(resumeRun(options(dirs, []))).rejects.toThrow(/saved in state review_board, which the chart built from these rules does not have/);
  });
});
