import { readdirSync, readlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { call, createScriptedModel, reply } from '../../actors/model/scripted-model.js';
import { extractiveSummary } from '../../actors/summarizer.js';
import { rulesSchema } from '../../rules/schema.js';
import { LAUNCH_STEPS, type LaunchStep, type RunOptions, startRun } from '../../run/start-run.js';
import { waitUntil } from '../helpers/wait.js';
import { makeTempDir } from '../helpers/workspace.js';

/** Files of this process open under `dir`. */
function openFilesUnder(dir: string): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(dir) ? [target] : [];
    } catch {
      return [];
    }
  });
}

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

function options(runDir: string, onLaunchStep?: (step: LaunchStep) => void): RunOptions {
  const workspace = makeTempDir('rein-launch-ws-');
  const model = createScriptedModel([reply(call('run', { command: 'echo hi' })), reply(call('finish', { summary: 'done' }))]);
  return {
    workspace,
    task: 'Say hi.',
    testCmd: 'true',
    rules: rulesSchema.parse({ verification: { gate: false }, phases: { plan: { enabled: false } } }),
    runDir,
    model: { name: 'scripted', description: 'scripted', createActor: () => model.actor, summarize: extractiveSummary },
    fsync: false,
    ...(onLaunchStep ? { onLaunchStep } : {}),
  };
}

describe('starting a run, step by step', () => {
  it.each(LAUNCH_STEPS)('a throw at the %s step is the start failing, and leaves nothing open', async (failing) => {
    const runDir = makeTempDir('rein-launch-run-');
    const timersBefore = timers();
    const seen: LaunchStep[] = [];
    await expect(
      startRun(
        options(runDir, (step) => {
          seen.push(step);
          if (step === failing) throw new Error(`stopped at ${step}`);
        }),
      ),
    ).rejects.toThrow(`stopped at ${failing}`);
    expect(seen).toEqual(LAUNCH_STEPS.slice(0, LAUNCH_STEPS.indexOf(failing) + 1));
    await waitUntil(() => openFilesUnder(runDir).length === 0 && timers() <= timersBefore, 'the run files and timers to be released');
  });

  it('runs every step in order, and releases the same things when the run ends', async () => {
    const runDir = makeTempDir('rein-launch-run-');
    const seen: LaunchStep[] = [];
    const run = await startRun(options(runDir, (step) => seen.push(step)));
    expect(seen).toEqual([...LAUNCH_STEPS]);
    expect(openFilesUnder(runDir).length).toBeGreaterThan(0);
    await expect(run.done).resolves.toMatchObject({ status: 'done' });
    expect(openFilesUnder(runDir)).toEqual([]);
  });
});
