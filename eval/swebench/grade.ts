import { runShell, type ShellResult } from '../shell.js';
import type { SweBenchInstance } from './instance.js';
import { applyTestPatch } from './workspace.js';

/** The command a test name is appended to when the instance sets no `test_cmd`. */
export const DEFAULT_SWEBENCH_TEST_CMD = 'python3 -m pytest -q -p no:cacheprovider';

interface TestListResult {
  passed: string[];
  failed: string[];
}

interface SweBenchGrade {
  resolved: boolean;
  failToPass: TestListResult;
  passToPass: TestListResult;
  /** As a check command's result: exit 0 when resolved, the failures' output otherwise. */
  check: ShellResult;
}

/** A test name as one shell word. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * Grades an instance as SWE-bench does, locally: the test patch applied
 * over the agent's work, then every FAIL_TO_PASS and PASS_TO_PASS test must
 * pass. A list is run in one command first; only when that fails is each of
 * its tests run alone to say which failed. Commands run sandboxed (they
 * execute code the agent wrote).
 */
export async function gradeInstance(instance: SweBenchInstance, workspace: string, timeoutS: number): Promise<SweBenchGrade> {
  const testCmd = instance.test_cmd ?? DEFAULT_SWEBENCH_TEST_CMD;
  if (instance.test_patch) {
    try {
      applyTestPatch(workspace, instance.base_commit, instance.test_patch);
    } catch (error) {
      const output = `test_patch did not apply: ${(error as { stderr?: string }).stderr ?? (error as Error).message}`;
      const none = (tests: string[]) => ({ passed: [], failed: tests });
      return {
        resolved: false,
        failToPass: none(instance.FAIL_TO_PASS),
        passToPass: none(instance.PASS_TO_PASS),
        check: { exitCode: 1, timedOut: false, output },
      };
    }
  }
  const outputs: string[] = [];
  let timedOut = false;
  const run = async (tests: string[]) => {
    const result = await runShell(`${testCmd} ${tests.map(shellQuote).join(' ')}`, { cwd: workspace, timeoutS, env: {}, sandbox: true, readable: [] });
    timedOut ||= result.timedOut;
    return result;
  };
  const judge = async (tests: string[]): Promise<TestListResult> => {
    if (tests.length === 0) return { passed: [], failed: [] };
    const all = await run(tests);
    if (all.exitCode === 0) return { passed: [...tests], failed: [] };
    if (tests.length === 1) {
      outputs.push(all.output);
      return { passed: [], failed: [...tests] };
    }
    const result: TestListResult = { passed: [], failed: [] };
    for (const test of tests) {
      const alone = await run([test]);
      if (alone.exitCode === 0) result.passed.push(test);
      else {
        result.failed.push(test);
        outputs.push(alone.output);
      }
    }
    return result;
  };
  const failToPass = await judge(instance.FAIL_TO_PASS);
  const passToPass = await judge(instance.PASS_TO_PASS);
  const resolved = failToPass.failed.length === 0 && passToPass.failed.length === 0;
  const counts = `FAIL_TO_PASS ${failToPass.passed.length}/${instance.FAIL_TO_PASS.length} pass, PASS_TO_PASS ${passToPass.passed.length}/${instance.PASS_TO_PASS.length} pass`;
  const failed = [...failToPass.failed, ...passToPass.failed];
  const output = [counts, ...(failed.length > 0 ? [`failed: ${failed.join(', ')}`] : []), ...outputs].join('\n');
  return { resolved, failToPass, passToPass, check: { exitCode: resolved ? 0 : 1, timedOut, output } };
}
