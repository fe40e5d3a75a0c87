import { dirname, resolve } from 'node:path';
import { UsageError } from 'rein/lib';
import { DEFAULT_CHECK_TIMEOUT_S, DEFAULT_TIMEOUT_S, type EvalTask, type TaskSet } from '../task.js';
import { gradePlan, verificationCommand } from './grade-command.js';
import { loadInstances, type SweBenchInstance } from './instance.js';
import { findRepoSource, hasCommit } from './repo-source.js';

/** What a SWE-bench task carries to the worker: its instance and the local repository it is checked out from. */
export interface SweBenchTaskInfo {
  instance: SweBenchInstance;
  source: string;
}

/** Whether a tasks path names an instance file rather than a folder of task folders. */
export function isInstanceFile(path: string): boolean {
  return /\.jsonl?$/i.test(path);
}

/**
 * The instances of a SWE-bench file as eval tasks: the agent is given the
 * problem statement and a verification command (the instance's `test_cmd`,
 * else its repository's runner); the workspace is the repository checked out
 * at `base_commit` from `reposDir` (no network); the grade is FAIL_TO_PASS and
 * PASS_TO_PASS, run by the grading command (grade-command.ts).
 * An instance whose repository or commit is not there is reported and skipped.
 *
 * @example const { tasks } = loadSweBenchTasks('instances.jsonl', '/data/repos');
 */
export function loadSweBenchTasks(file: string, reposDir: string | undefined): TaskSet {
  if (!reposDir) throw new UsageError(`${file} is a SWE-bench instance file: pass --repos DIR (a directory of clones or bare mirrors, e.g. owner__name.git)`);
  const { instances, problems } = loadInstances(file);
  const tasks: EvalTask[] = [];
  for (const instance of instances) {
    const source = findRepoSource(resolve(reposDir), instance.repo);
    if (!source) {
      problems.push({
        id: instance.instance_id,
        problem: `no local copy of ${instance.repo} in ${reposDir} (tried ${instance.repo.replace('/', '__')}[.git], ${instance.repo}[.git])`,
      });
      continue;
    }
    if (!hasCommit(source, instance.base_commit)) {
      problems.push({ id: instance.instance_id, problem: `${source} does not have base_commit ${instance.base_commit} (fetch it into the mirror)` });
      continue;
    }
    const testCmd = verificationCommand(instance);
    const plan = gradePlan(instance);
    tasks.push({
      id: instance.instance_id,
      dir: dirname(resolve(file)),
      repoDir: source,
      prompt: instance.problem_statement,
      test_cmd: testCmd,
      check_cmd:
        plan.mode === 'log'
          ? `SWE-bench grade: FAIL_TO_PASS and PASS_TO_PASS from \`${plan.command}\`, read with SWE-bench's ${plan.parser} parser`
          : `SWE-bench grade: FAIL_TO_PASS and PASS_TO_PASS, each test appended to \`${plan.prefix}\``,
      timeout_s: instance.timeout_s ?? DEFAULT_TIMEOUT_S,
      check_timeout_s: instance.check_timeout_s ?? DEFAULT_CHECK_TIMEOUT_S,
      simulated: null,
      swebench: { instance, source },
    });
  }
  return { tasks: tasks.sort((a, b) => a.id.localeCompare(b.id)), problems };
}
