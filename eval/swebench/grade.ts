import { runShell, type ShellResult } from '../shell.js';
import { type GradePlan, gradePlan, shellQuote } from './grade-command.js';
import { invalidRun, judgeStatusMap, type TestListResult } from './grade-log.js';
import type { SweBenchInstance } from './instance.js';
import { logParser } from './log-parsers.js';
import { applyTestPatch } from './workspace.js';

interface SweBenchGrade {
  resolved: boolean;
  failToPass: TestListResult;
  passToPass: TestListResult;
  /** As a check command's result: exit 0 when resolved, the failures' output otherwise. */
  check: ShellResult;
  /** How it was graded: the command run, and the parser that read its log (none: by exit code). */
  grading: { command: string; parser: string | null };
}

/**
 * Grades an instance as SWE-bench does, locally: the test patch applied over
 * the agent's work, then every FAIL_TO_PASS and PASS_TO_PASS test must pass.
 * For a repository SWE-bench has a log parser for (or an instance that names
 * one), the grading command runs once over the patched test files and its log
 * is read by that parser, as the official harness reads it (grade-command.ts,
 * log-parsers.ts); otherwise each list runs with its test ids appended and
 * passes on exit 0, and a failing list is run test by test to say which failed.
 * The grading command is never the agent's verification command unless the
 * instance says so. Commands run sandboxed (they execute code the agent wrote).
 */
export async function gradeInstance(instance: SweBenchInstance, workspace: string, timeoutS: number): Promise<SweBenchGrade> {
  const plan = gradePlan(instance);
  const command = plan.mode === 'log' ? plan.command : plan.prefix;
  const grading = { command, parser: plan.mode === 'log' ? plan.parser : null };
  if (instance.test_patch) {
    try {
      applyTestPatch(workspace, instance.base_commit, instance.test_patch);
    } catch (error) {
      const output = `test_patch did not apply: ${(error as { stderr?: string }).stderr ?? (error as Error).message}`;
      return { ...failedAll(instance, { exitCode: 1, timedOut: false, output }), grading };
    }
  }
  const run = (line: string) => runShell(line, { cwd: workspace, timeoutS, env: {}, sandbox: true, readable: [] });
  const graded = plan.mode === 'log' ? await byLog(instance, plan, run) : await byExitCode(instance, plan.prefix, run);
  return { ...graded, grading };
}

type Run = (line: string) => Promise<ShellResult>;

async function byLog(instance: SweBenchInstance, plan: Extract<GradePlan, { mode: 'log' }>, run: Run): Promise<Omit<SweBenchGrade, 'grading'>> {
  const result = await run(plan.command);
  const map = logParser(plan.parser)!(result.output);
  const invalid = result.timedOut ? 'the test command timed out' : invalidRun(map, result.exitCode);
  if (invalid) return failedAll(instance, { exitCode: 1, timedOut: result.timedOut, output: `${invalid}\n$ ${plan.command}\n${result.output}` });
  const { failToPass, passToPass } = judgeStatusMap(map, instance.FAIL_TO_PASS, instance.PASS_TO_PASS);
  return verdict(failToPass, passToPass, { timedOut: false, outputs: [`$ ${plan.command} (read with SWE-bench's ${plan.parser} parser)`, result.output] });
}

async function byExitCode(instance: SweBenchInstance, prefix: string, run: Run): Promise<Omit<SweBenchGrade, 'grading'>> {
  const outputs: string[] = [];
  let timedOut = false;
  const attempt = async (tests: readonly string[]) => {
    const result = await run(`${prefix} ${tests.map(shellQuote).join(' ')}`);
    timedOut ||= result.timedOut;
    return result;
  };
  const judge = async (tests: readonly string[]): Promise<TestListResult> => {
    if (tests.length === 0) return { passed: [], failed: [] };
    const all = await attempt(tests);
    if (all.exitCode === 0) return { passed: [...tests], failed: [] };
    if (tests.length === 1) {
      outputs.push(all.output);
      return { passed: [], failed: [...tests] };
    }
    const result: TestListResult = { passed: [], failed: [] };
    for (const test of tests) {
      const alone = await attempt([test]);
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
  return verdict(failToPass, passToPass, { timedOut, outputs });
}

function verdict(failToPass: TestListResult, passToPass: TestListResult, run: { timedOut: boolean; outputs: string[] }): Omit<SweBenchGrade, 'grading'> {
  const resolved = failToPass.failed.length === 0 && passToPass.failed.length === 0;
  const counts = `FAIL_TO_PASS ${failToPass.passed.length}/${failToPass.passed.length + failToPass.failed.length} pass, PASS_TO_PASS ${passToPass.passed.length}/${passToPass.passed.length + passToPass.failed.length} pass`;
  const failed = [...failToPass.failed, ...passToPass.failed];
  const output = [counts, ...(failed.length > 0 ? [`failed: ${failed.join(', ')}`] : []), ...(resolved ? [] : run.outputs)].join('\n');
  return { resolved, failToPass, passToPass, check: { exitCode: resolved ? 0 : 1, timedOut: run.timedOut, output } };
}

function failedAll(instance: SweBenchInstance, check: ShellResult): Omit<SweBenchGrade, 'grading'> {
  const none = (tests: string[]) => ({ passed: [], failed: [...tests] });
  return { resolved: false, failToPass: none(instance.FAIL_TO_PASS), passToPass: none(instance.PASS_TO_PASS), check };
}
