import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gradeInstance } from '../../eval/swebench/grade.js';
import { gradePlan, testDirectives, verificationCommand } from '../../eval/swebench/grade-command.js';
import { judgeStatusMap } from '../../eval/swebench/grade-log.js';
import type { SweBenchInstance } from '../../eval/swebench/instance.js';
import { parsePytest } from '../../eval/swebench/log-parsers.js';
import { makeTempDir } from '../../testing/temp-dir.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' }).trim();
const write = (root: string, files: Record<string, string>) => {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
};

/**
 * Django's tests/runtests.py, reduced to what the grader relies on: it takes the harness's flags and module labels and
 * runs them with unittest at verbosity 2 (the runner Django's own runtests.py drives), so the log is unittest's real
 * output on this machine's Python.
 */
const RUNTESTS = `#!/usr/bin/env python3
import os, sys, unittest
here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [here, os.path.dirname(here)]
labels = [arg for arg in sys.argv[1:] if not arg.startswith("--") and not arg.isdigit()]
suite = unittest.defaultTestLoader.loadTestsFromNames(labels)
result = unittest.TextTestRunner(verbosity=2).run(suite)
sys.exit(0 if result.wasSuccessful() else 1)
`;

const FORMS = (body: string) => `from slugify import slug


class SlugTests(__import__("unittest").TestCase):
    def test_lowercases(self):
        self.assertEqual(slug("AB"), "ab")
${body}`;

/** A Django-shaped repository (repo django/django): the base commit slugs with "_", the test patch expects "-". */
function djangoLike() {
  const dir = makeTempDir('rein-swe-django-');
  git(dir, 'init', '-q');
  write(dir, {
    'slugify.py': 'def slug(text):\n    return text.lower().replace(" ", "_")\n',
    'tests/runtests.py': RUNTESTS,
    'tests/forms_tests/__init__.py': '',
    'tests/forms_tests/tests.py': FORMS(''),
  });
  chmodSync(join(dir, 'tests', 'runtests.py'), 0o755);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  const base = git(dir, 'rev-parse', 'HEAD');
  write(dir, {
    'tests/forms_tests/tests.py': FORMS(
      '\n    def test_dashes(self):\n        self.assertEqual(slug("a b"), "a-b")\n\n    def test_documented(self):\n        """Spaces become dashes, as the docs say."""\n        self.assertEqual(slug("x y"), "x-y")\n',
    ),
  });
  const testPatch = `${git(dir, 'diff')}\n`;
  git(dir, 'checkout', '-q', '--', '.');
  const instance: SweBenchInstance = {
    instance_id: 'django__django-1',
    repo: 'django/django',
    base_commit: base,
    problem_statement: 'slug() should use dashes',
    test_patch: testPatch,
    // The ids as SWE-bench's Django parser makes them on Python 3.11: `name (module.Class.name)`, or a docstring's first line.
    FAIL_TO_PASS: ['test_dashes (forms_tests.tests.SlugTests.test_dashes)', 'Spaces become dashes, as the docs say.'],
    PASS_TO_PASS: ['test_lowercases (forms_tests.tests.SlugTests.test_lowercases)'],
  };
  return { dir, instance };
}

describe('grading a Django instance as SWE-bench does: its runner, its module labels, its log parser', () => {
  it('the grading command is the harness’s runtests.py over the test patch’s modules, not the agent’s verification command', () => {
    const { instance } = djangoLike();
    expect(gradePlan({ ...instance, test_cmd: 'python -m pytest' })).toEqual({
      mode: 'log',
      command: './tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 forms_tests.tests',
      parser: 'django',
    });
    expect(verificationCommand(instance)).toBe('./tests/runtests.py --settings=test_sqlite --parallel 1');
    expect(verificationCommand({ ...instance, test_cmd: 'make check' })).toBe('make check');
  });

  it('resolves a right fix (ids with the class path and a docstring id both found) and not a wrong one', async () => {
    const { dir, instance } = djangoLike();
    writeFileSync(join(dir, 'slugify.py'), 'def slug(text):\n    return text.lower().replace(" ", "-")\n');
    const right = await gradeInstance(instance, dir, 60);
    expect(right.check.output).toContain('FAIL_TO_PASS 2/2 pass, PASS_TO_PASS 1/1 pass');
    expect(right).toMatchObject({ resolved: true, grading: { parser: 'django' } });
    writeFileSync(join(dir, 'slugify.py'), 'def slug(text):\n    return text.lower().replace(" ", "")\n');
    const wrong = await gradeInstance(instance, dir, 60);
    expect(wrong.resolved).toBe(false);
    expect(wrong.failToPass.failed).toEqual(instance.FAIL_TO_PASS);
    expect(wrong.passToPass.passed).toEqual(instance.PASS_TO_PASS);
    expect(wrong.check.output).toMatch(/test_dashes \(forms_tests\.tests\.SlugTests\.test_dashes\) \.\.\. FAIL/);
  }, 60_000);

  it('a run that prints passes and exits non-zero with no failure reported is not graded as passing', async () => {
    const { dir, instance } = djangoLike();
    // The code under test prints the lines a passing run prints, then the process fails.
    writeFileSync(
      join(dir, 'slugify.py'),
      'import atexit, os\natexit.register(lambda: (print("test_dashes (forms_tests.tests.SlugTests.test_dashes) ... ok", flush=True), os._exit(3)))\ndef slug(text):\n    return text.lower().replace(" ", "-")\n',
    );
    const graded = await gradeInstance({ ...instance, FAIL_TO_PASS: [instance.FAIL_TO_PASS[0]!], PASS_TO_PASS: [] }, dir, 60);
    expect(graded.resolved).toBe(false);
    expect(graded.check.output).toMatch(/exited 3 but its output reports no failure or error/);
  }, 60_000);
});

describe('the status-map rules of SWE-bench 5', () => {
  const log = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'swebench', 'pytest-rA.generated.log'), 'utf8');
  const map = parsePytest(log);

  it('an id cut off inside its parameters matches the ids it begins when they agree (676 such ids in Verified)', () => {
    expect(judgeStatusMap(map, ['tests/test_units.py::test_param[/tmp/data'], []).failToPass.passed).toEqual(['tests/test_units.py::test_param[/tmp/data']);
    // test_param[m (cut by the parser at the space) and test_param[/tmp/… passed, test_param[kg] failed: they disagree, no match.
    expect(judgeStatusMap(map, ['tests/test_units.py::test_param['], []).failToPass.failed).toEqual(['tests/test_units.py::test_param[']);
  });

  it('an xfail passes; a skipped test fails FAIL_TO_PASS but keeps PASS_TO_PASS; a test the log does not show fails', () => {
    const skipped = { 'tests/test_units.py::test_skipped': 'SKIPPED' as const, ...map };
    const judged = judgeStatusMap(
      skipped,
      ['tests/test_units.py::test_xfails', 'tests/test_units.py::test_skipped', 'tests/test_units.py::test_missing'],
      ['tests/test_units.py::test_skipped', 'tests/test_units.py::test_errors'],
    );
    expect(judged.failToPass).toEqual({
      passed: ['tests/test_units.py::test_xfails'],
      failed: ['tests/test_units.py::test_skipped', 'tests/test_units.py::test_missing'],
    });
    expect(judged.passToPass).toEqual({ passed: ['tests/test_units.py::test_skipped'], failed: ['tests/test_units.py::test_errors'] });
  });

  it('directives: the test files of the patch (no data files), Django’s as module labels; sympy graded by bin/test, others by pytest -rA', () => {
    const patch =
      'diff --git a/tests/admin_views/test_forms.py b/tests/admin_views/test_forms.py\n+x\ndiff --git a/tests/admin_views/fixtures/a.json b/tests/admin_views/fixtures/a.json\n+{}\n';
    expect(testDirectives({ repo: 'django/django', test_patch: patch })).toEqual(['admin_views.test_forms']);
    expect(testDirectives({ repo: 'astropy/astropy', test_patch: patch })).toEqual(['tests/admin_views/test_forms.py']);
    const base = { instance_id: 'x__y-1', base_commit: 'a'.repeat(40), problem_statement: 'p', FAIL_TO_PASS: ['t'], PASS_TO_PASS: [], test_patch: patch };
    expect(gradePlan({ ...base, repo: 'sympy/sympy' })).toMatchObject({
      command: expect.stringMatching(/bin\/test -C --verbose tests\/admin_views\/test_forms\.py$/),
      parser: 'sympy',
    });
    expect(gradePlan({ ...base, repo: 'pallets/flask' })).toMatchObject({ command: 'pytest -rA tests/admin_views/test_forms.py', parser: 'pytest' });
    // A repository SWE-bench has no parser for: ids appended to grade_cmd, else test_cmd; an instance may name a parser.
    expect(gradePlan({ ...base, repo: 'acme/calc', test_cmd: 'node --test', grade_cmd: 'node --test --test-reporter=tap' })).toEqual({
      mode: 'exit-code',
      prefix: 'node --test --test-reporter=tap',
    });
    expect(gradePlan({ ...base, repo: 'acme/calc', log_parser: 'parse_log_pytest_v2', grade_cmd: 'python -m pytest -rA' })).toMatchObject({
      mode: 'log',
      parser: 'pytest_v2',
    });
  });
});
