import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedIntake } from '../../actors/model/model-source.js';
import { createScriptedModel, type Script } from '../../actors/model/scripted-model.js';
import { extractiveSummary } from '../../actors/summarizer.js';
import { rulesSchema } from '../../rules/schema.js';
import { readRecord } from '../../run/record/transcript.js';
import { writeForkRunDir } from '../../run/snapshots/fork-run-dir.js';
import { chartOf, openSnapshotRun, stepSnapshot } from '../../run/snapshots/step-snapshots.js';
import { resumeRun } from '../../run/start-run.js';
import { type AtifTrajectory, atifTrajectorySchema } from '../../telemetry/atif/atif-schema.js';
import { exportRunAsAtif } from '../../telemetry/atif/export-run.js';
import { call, makeTempDir, reply, runScripted } from '../../testing/index.js';
import { fieldPaths, harborAcceptedPaths } from '../helpers/atif-verdicts.js';

const accepted = harborAcceptedPaths();

let previousState: string | undefined;
beforeAll(() => {
  previousState = process.env.XDG_STATE_HOME;
  process.env.XDG_STATE_HOME = makeTempDir('rein-test-state-');
});
afterAll(() => {
  if (previousState === undefined) delete process.env.XDG_STATE_HOME;
  else process.env.XDG_STATE_HOME = previousState;
});

/** Exported, checked by the ATIF model and held to fields Harbor's validator accepted in a real trajectory. */
function exported(runDir: string): AtifTrajectory {
  const trajectory = exportRunAsAtif(runDir);
  expect(atifTrajectorySchema.safeParse(JSON.parse(JSON.stringify(trajectory))).success).toBe(true);
  expect([...fieldPaths(trajectory)].filter((path) => !accepted.has(path))).toEqual([]);
  return trajectory;
}

/** `rein fork <runDir> --at <step>` in process: the fork's run directory, then `rein resume` of it with a scripted model. */
async function fork(runDir: string, step: number, forkDir: string, script: Script): Promise<void> {
  const origin = openSnapshotRun(runDir);
  const target = stepSnapshot(origin, step);
  writeForkRunDir({ run: origin, target, chart: chartOf(origin, target), forkDir, changes: { workspace: origin.meta.workspace, model: 'scripted' } });
  let intake: ReturnType<typeof scriptedIntake> | null = null;
  const model = createScriptedModel(script, { intake: (answer, at, messages) => (intake ? intake(answer, at, messages) : answer) });
  const handle = await resumeRun({
    workspace: origin.meta.workspace,
    task: 'Read the files.',
    testCmd: 'true',
    rules: rulesSchema.parse({}),
    runDir: forkDir,
    fsync: false,
    model: {
      name: 'scripted',
      description: 'scripted test model',
      createActor: (schemas, hooks) => {
        intake = scriptedIntake(schemas, hooks);
        return model.actor;
      },
      summarize: extractiveSummary,
    },
  });
  await handle.done.catch(() => undefined);
}

/** Each step's copied mark and what it is: `agent 2`, `user`, `system`. */
const marks = (trajectory: AtifTrajectory) =>
  trajectory.steps.map((step) => ({
    what: step.source === 'agent' ? `agent ${String((step.extra?.rein as { step?: number } | undefined)?.step)}` : step.source,
    copied: step.is_copied_context === true,
  }));

describe("a fork's ATIF trajectory", () => {
  it('marks the steps copied from its origin as copied context (is_copied_context), and no step of its own', async () => {
    const origin = await runScripted({
      files: { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' },
      task: 'Read the files.',
      testCmd: 'true',
      script: [
        reply(call('read_file', { path: 'a.txt' })),
        reply(call('read_file', { path: 'b.txt' })),
        reply(call('read_file', { path: 'c.txt' })),
        reply(call('finish', { summary: 'read' })),
      ],
    });
    expect(exported(origin.runDir).steps.some((step) => step.is_copied_context)).toBe(false);

    const base = makeTempDir('rein-atif-fork-');
    const first = join(base, 'fork');
    await fork(origin.runDir, 2, first, [
      reply(call('read_file', { path: 'c.txt' })),
      reply(call('read_file', { path: 'a.txt' })),
      reply(call('finish', { summary: 'x' })),
    ]);
    const trajectory = exported(first);
    const shown = marks(trajectory);
    // Everything up to the origin's step 2 (the prompt, the task, its two replies) is copied; from step 3 on it is the fork's.
    const firstOwn = shown.findIndex((step) => step.what === 'agent 3');
    expect(firstOwn).toBeGreaterThan(2);
    expect(shown.slice(0, firstOwn).every((step) => step.copied)).toBe(true);
    expect(shown.slice(firstOwn).some((step) => step.copied)).toBe(false);
    expect(shown.slice(0, firstOwn).map((step) => step.what)).toEqual(expect.arrayContaining(['system', 'user', 'agent 1', 'agent 2']));
    // As many copied messages as the fork's record took from its origin.
    const copiedMessages = readRecord(join(first, 'record.jsonl')).filter((message) => message.role !== 'tool').length;
    expect(copiedMessages).toBeGreaterThan(firstOwn);

    // A fork of the fork, at its step 4: its copied context runs through step 4, the origin's steps and the first fork's.
    const second = join(base, 'fork-of-fork');
    await fork(first, 4, second, [reply(call('finish', { summary: 'y' }))]);
    const again = marks(exported(second));
    const secondOwn = again.findIndex((step) => step.what === 'agent 5');
    expect(secondOwn).toBeGreaterThan(firstOwn);
    expect(again.slice(0, secondOwn).every((step) => step.copied)).toBe(true);
    expect(again.slice(secondOwn).some((step) => step.copied)).toBe(false);
  }, 60_000);
});
