import type { SweBenchInstance } from './instance.js';
import { LOG_PARSERS, PARSER_BY_REPO } from './log-parsers.js';

/** The command a test name is appended to when neither the instance nor its repository says how to grade. */
const DEFAULT_SWEBENCH_TEST_CMD = 'python3 -m pytest -q -p no:cacheprovider';

/** How SWE-bench's harness runs each repository's tests (swebench/harness/constants/python.py), when the instance names no grade_cmd. */
const GRADE_COMMANDS: Readonly<Record<string, string>> = {
  'django/django': './tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1',
  'sympy/sympy': "PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose",
  'mwaskom/seaborn': 'pytest --no-header -rA',
  'sphinx-doc/sphinx': 'tox --current-env -epy39 -v --',
};

/** The agent's verification command when the instance names none: the repository's own runner, quietly. */
const VERIFY_COMMANDS: Readonly<Record<string, string>> = {
  'django/django': './tests/runtests.py --settings=test_sqlite --parallel 1',
  'sympy/sympy': 'bin/test -C',
};

/** Files of a patch that are not tests (SWE-bench's NON_TEST_EXTS). */
const NON_TEST = /\.(?:json|png|txt|md|jpg|jpeg|pkl|yml|yaml|toml)$|csv$/;

/** How an instance is graded. */
export type GradePlan =
  /** Run once, parse the runner's log with SWE-bench's parser for the repository, judge the lists on the status map. */
  | { mode: 'log'; command: string; parser: string }
  /** Run each list with its test ids appended; a list passes on exit 0 (repositories SWE-bench has no parser for). */
  | { mode: 'exit-code'; prefix: string };

/**
 * How to grade an instance, apart from the agent's verification command
 * (`test_cmd`): with a log parser (the instance's `log_parser`, else the one
 * SWE-bench uses for its repository), the grading command (`grade_cmd`, else
 * the harness's command for the repository) runs once over the test files the
 * test patch touches (SWE-bench's directives: Django's as module labels);
 * without one, test ids are appended to `grade_cmd` (else `test_cmd`, else a
 * pytest command) and judged by exit code.
 */
export function gradePlan(instance: SweBenchInstance): GradePlan {
  const parser = instance.log_parser?.replace(/^parse_log_/, '') ?? PARSER_BY_REPO[instance.repo];
  if (!parser || !(parser in LOG_PARSERS)) return { mode: 'exit-code', prefix: instance.grade_cmd ?? instance.test_cmd ?? DEFAULT_SWEBENCH_TEST_CMD };
  const base = instance.grade_cmd ?? GRADE_COMMANDS[instance.repo] ?? 'pytest -rA';
  const directives = testDirectives(instance).map(shellWord);
  return { mode: 'log', command: [base, ...directives].join(' '), parser };
}

/** The agent's verification command: the instance's `test_cmd`, else its repository's runner, else pytest. */
export function verificationCommand(instance: SweBenchInstance): string {
  return instance.test_cmd ?? VERIFY_COMMANDS[instance.repo] ?? DEFAULT_SWEBENCH_TEST_CMD;
}

/** The test files the test patch touches, as the harness passes them to the runner (Django: `admin_views.test_forms`). */
export function testDirectives(instance: Pick<SweBenchInstance, 'repo' | 'test_patch'>): string[] {
  if (!instance.test_patch) return [];
  const files = [...instance.test_patch.matchAll(/^diff --git a\/.* b\/(.*)$/gm)].map((match) => match[1]!).filter((file) => !NON_TEST.test(file));
  const unique = [...new Set(files)];
  if (instance.repo !== 'django/django') return unique;
  return unique.map((file) =>
    file
      .replace(/\.py$/, '')
      .replace(/^tests\//, '')
      .replaceAll('/', '.'),
  );
}

/** A path or label as one shell word, quoted only when it needs to be (the command reads as the harness's). */
function shellWord(text: string): string {
  return /^[\w./:=@+-]+$/.test(text) ? text : shellQuote(text);
}

/** A test name or path as one shell word. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
