import type { StatusMap } from './log-parsers.js';

/** One test list's outcome. */
export interface TestListResult {
  passed: string[];
  failed: string[];
}

/**
 * The status-map key of an expected test id: the id itself, or, for an id cut
 * off inside its parameters (more `[` than `]`: 676 such ids in SWE-bench
 * Verified), the keys it begins, when they all agree on pass or fail
 * (SWE-bench 5's `_resolve_case`).
 */
function resolveCase(id: string, map: StatusMap): string | null {
  if (id in map) return id;
  if ((id.match(/\[/g) ?? []).length <= (id.match(/\]/g) ?? []).length) return null;
  const matches = Object.keys(map).filter((key) => key.startsWith(id));
  const outcomes = new Set(matches.map((key) => map[key] === 'PASSED' || map[key] === 'XFAIL'));
  return matches.length > 0 && outcomes.size === 1 ? matches[0]! : null;
}

const passed = (id: string, map: StatusMap) => {
  const key = resolveCase(id, map);
  return key !== null && (map[key] === 'PASSED' || map[key] === 'XFAIL');
};

/**
 * FAIL_TO_PASS and PASS_TO_PASS judged on a status map as SWE-bench 5 judges
 * them: a FAIL_TO_PASS test must pass (or xfail); a PASS_TO_PASS test may
 * also be skipped (a skip is not a regression, but it is no fix either); a
 * test the log does not show failed.
 */
export function judgeStatusMap(
  map: StatusMap,
  failToPass: readonly string[],
  passToPass: readonly string[],
): { failToPass: TestListResult; passToPass: TestListResult } {
  const split = (tests: readonly string[], ok: (id: string) => boolean): TestListResult => ({
    passed: tests.filter(ok),
    failed: tests.filter((id) => !ok(id)),
  });
  return {
    failToPass: split(failToPass, (id) => passed(id, map)),
    passToPass: split(passToPass, (id) => passed(id, map) || map[resolveCase(id, map) ?? ''] === 'SKIPPED'),
  };
}

/**
 * Why a test run's log cannot be graded, or null when it can: no test result
 * in it at all (the runner never ran), or a non-zero exit with no failure or
 * error reported (what the code under test printed is not what happened).
 * These are SWE-bench 5's checks in `get_logs_eval`.
 */
export function invalidRun(map: StatusMap, exitCode: number | null): string | null {
  const statuses = Object.values(map);
  if (statuses.length === 0) return 'the test command printed no test results the parser recognises (did the tests run?)';
  if (exitCode !== null && exitCode !== 0 && !statuses.some((status) => status === 'FAILED' || status === 'ERROR'))
    return `the test command exited ${exitCode} but its output reports no failure or error`;
  return null;
}
