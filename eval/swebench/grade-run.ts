import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ShellResult } from '../shell.js';
import { gradeInstance } from './grade.js';
import type { SweBenchTaskInfo } from './tasks.js';
import { filesInPatch, modelPatch } from './workspace.js';

/** The agent's diff for predictions.jsonl, kept in its run directory. */
export const MODEL_PATCH_FILE = 'model.patch';

/**
 * After the agent: its diff against `base_commit` (tests and rein's files
 * left out) saved as the run's `model.patch`, then the local grade. The
 * facts go into the run's results line.
 */
export async function gradeSweBenchRun(
  info: SweBenchTaskInfo,
  workspace: string,
  runDir: string,
  timeoutS: number,
): Promise<{ check: ShellResult; facts: Record<string, unknown> }> {
  const { instance } = info;
  let patch = '';
  try {
    patch = modelPatch(workspace, instance.base_commit, instance.test_patch ? filesInPatch(instance.test_patch) : []);
  } catch (error) {
    return {
      check: { exitCode: null, timedOut: false, output: `could not diff the workspace: ${(error as Error).message}` },
      facts: { instanceId: instance.instance_id },
    };
  }
  writeFileSync(join(runDir, MODEL_PATCH_FILE), patch);
  const grade = await gradeInstance(instance, workspace, timeoutS);
  return {
    check: grade.check,
    facts: {
      instanceId: instance.instance_id,
      patchBytes: Buffer.byteLength(patch),
      failToPass: grade.failToPass,
      passToPass: grade.passToPass,
      grading: grade.grading,
    },
  };
}
