/**
 * SWE-bench's per-repository test-log parsers, reproduced: each reads the
 * output of a repository's own test runner into a map from test id to status
 * (`PASSED`, `FAILED`, `SKIPPED`, `ERROR`, `XFAIL`), exactly as
 * `swebench/harness/log_parsers/python.py` (SWE-bench 5.0.2) does, quirks
 * included, so the ids in FAIL_TO_PASS and PASS_TO_PASS (which were made by
 * these parsers) are found. test/eval/swebench-log-parsers.test.ts compares
 * every parser with the official one's output on real logs.
 */

type TestStatus = 'PASSED' | 'FAILED' | 'SKIPPED' | 'ERROR' | 'XFAIL';
export type StatusMap = Record<string, TestStatus>;
type Parser = (log: string) => StatusMap;

const STATUSES: readonly TestStatus[] = ['FAILED', 'PASSED', 'SKIPPED', 'ERROR', 'XFAIL'];

/** Python's `str.split()`: words between runs of whitespace, none for a blank line. */
const words = (line: string) => line.trim().split(/\s+/).filter(Boolean);
const startsWithStatus = (line: string) => STATUSES.some((status) => line.startsWith(status));
/** pytest's `SKIPPED [N] path:line: reason` summary line, whose `[N]` is not a test. */
const isSkipSummary = (status: string, name: string) => status === 'SKIPPED' && /^\[\d+\]$/.test(name);

/** `pytest -rA`: the short test summary's `STATUS id` lines; the id is the second word. */
export function parsePytest(log: string): StatusMap {
  const map: StatusMap = {};
  for (let line of log.split('\n')) {
    if (!startsWithStatus(line)) continue;
    if (line.startsWith('FAILED')) line = line.replaceAll(' - ', ' ');
    const parts = words(line);
    if (parts.length <= 1 || isSkipSummary(parts[0]!, parts[1]!)) continue;
    map[parts[1]!] = parts[0] as TestStatus;
  }
  return map;
}

/** As `parsePytest`, and a parameter that is an absolute path is shortened to `/<last part>` (requests, pydicom, pylint). */
function parsePytestOptions(log: string): StatusMap {
  const map: StatusMap = {};
  for (const [id, status] of Object.entries(parsePytest(log))) {
    const option = /(.*?)\[(.*)\]/.exec(id);
    if (!option) {
      map[id] = status;
      continue;
    }
    const [, main, parameter = ''] = option;
    const shortened = parameter.startsWith('/') && !parameter.startsWith('//') && !parameter.includes('*') ? `/${parameter.split('/').at(-1)}` : parameter;
    map[`${main}[${shortened}]`] = status;
  }
  return map;
}

/** Newer pytest output (astropy, scikit-learn, sphinx): colour codes and control characters dropped, ids may hold spaces, the status may come last. */
function parsePytestV2(log: string): StatusMap {
  const map: StatusMap = {};
  for (const raw of log.split('\n')) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the parser removes exactly the characters 1 to 31, as SWE-bench's does
    let line = raw.replace(/\[(\d+)m/g, '').replace(/[\u0001-\u001f]/g, '');
    if (startsWithStatus(line)) {
      if (line.startsWith('FAILED')) line = line.split(' - ')[0]!;
      const parts = words(line);
      if (parts.length >= 2 && !isSkipSummary(parts[0]!, parts[1]!)) map[parts.slice(1).join(' ')] = parts[0] as TestStatus;
    } else if (STATUSES.some((status) => line.endsWith(status))) {
      const parts = words(line);
      if (parts.length >= 2) map[parts.slice(0, -1).join(' ')] = parts.at(-1) as TestStatus;
    }
  }
  return map;
}

/** matplotlib: pytest, with `MouseButton.LEFT`/`RIGHT` in ids read as 1 and 3. */
function parseMatplotlib(log: string): StatusMap {
  return parsePytest(
    log
      .split('\n')
      .map((line) => line.replaceAll('MouseButton.LEFT', '1').replaceAll('MouseButton.RIGHT', '3'))
      .join('\n'),
  );
}

/** seaborn: `FAILED id`, `PASSED id`, or `id PASSED …`. */
function parseSeaborn(log: string): StatusMap {
  const map: StatusMap = {};
  for (const line of log.split('\n')) {
    const parts = words(line);
    if (parts.length < 2) continue;
    if (line.startsWith('FAILED')) map[parts[1]!] = 'FAILED';
    else if (line.includes(' PASSED ')) {
      if (parts[1] === 'PASSED') map[parts[0]!] = 'PASSED';
    } else if (line.startsWith('PASSED')) map[parts[1]!] = 'PASSED';
  }
  return map;
}

const DJANGO_PASS_SUFFIXES = [' ... ok', ' ... OK', ' ...  OK'];
/** Output that Django's test run can print between a test's ` ... ` and its `ok`. */
const DJANGO_INTERRUPTED = [
  /^(.*?)\s\.\.\.\sTesting against Django installed in ([\s\S]*?) silenced\)\.\nok$/gm,
  /^(.*?)\s\.\.\.\sInternal Server Error: \/(.*)\/\nok$/gm,
  /^(.*?)\s\.\.\.\sSystem check identified no issues \(0 silenced\)\nok$/gm,
];

/** Django's `tests/runtests.py --verbosity 2`: unittest's `description ... ok|FAIL|ERROR|skipped`, and `FAIL:`/`ERROR:` headers. */
function parseDjango(log: string): StatusMap {
  const map: StatusMap = {};
  let previous: string | null = null;
  for (const raw of log.split('\n')) {
    let line = raw.trim();
    if (line.includes('--version is equivalent to version')) map['--version is equivalent to version'] = 'PASSED';
    if (line.includes(' ... ')) previous = line.split(' ... ')[0]!;
    for (const suffix of DJANGO_PASS_SUFFIXES) {
      if (!line.endsWith(suffix)) continue;
      // SWE-bench's own exception for django__django-7188, where a migration's output runs into the test's line.
      if (line.startsWith('Applying sites.0002_alter_domain_unique...test_no_migrations')) line = line.split('...').slice(1).join('...').trim();
      map[line.slice(0, line.lastIndexOf(suffix))] = 'PASSED';
      break;
    }
    if (line.includes(' ... skipped')) map[line.split(' ... skipped')[0]!] = 'SKIPPED';
    if (line.endsWith(' ... FAIL')) map[line.split(' ... FAIL')[0]!] = 'FAILED';
    if (line.startsWith('FAIL:') && words(line)[1]) map[words(line)[1]!] = 'FAILED';
    if (line.endsWith(' ... ERROR')) map[line.split(' ... ERROR')[0]!] = 'ERROR';
    if (line.startsWith('ERROR:') && words(line)[1]) map[words(line)[1]!] = 'ERROR';
    // The test passed with output of its own between "..." and "ok".
    if (line.trimStart().startsWith('ok') && previous !== null) map[previous] = 'PASSED';
  }
  for (const pattern of DJANGO_INTERRUPTED) for (const match of log.matchAll(pattern)) map[match[1]!] = 'PASSED';
  return map;
}

/** SymPy's `bin/test`: failure headers `___ path.py:test ___`, and in verbose mode `test_name ok|F|E` lines. */
function parseSympy(log: string): StatusMap {
  const map: StatusMap = {};
  for (const match of log.matchAll(/(_*) (.*)\.py:(.*) (_*)/g)) map[`${match[2]}.py:${match[3]}`] = 'FAILED';
  for (const raw of log.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('test_')) continue;
    if (line.endsWith(' E')) map[words(line)[0]!] = 'ERROR';
    if (line.endsWith(' F')) map[words(line)[0]!] = 'FAILED';
    if (line.endsWith(' ok')) map[words(line)[0]!] = 'PASSED';
  }
  return map;
}

/** The parsers by SWE-bench's names (`parse_log_<name>`; `log_parser` in an instance may use either spelling). */
export const LOG_PARSERS: Readonly<Record<string, Parser>> = {
  pytest: parsePytest,
  pytest_options: parsePytestOptions,
  pytest_v2: parsePytestV2,
  matplotlib: parseMatplotlib,
  seaborn: parseSeaborn,
  django: parseDjango,
  sympy: parseSympy,
};

/** Which parser SWE-bench uses for each repository of SWE-bench (`MAP_REPO_TO_PARSER_PY`). */
export const PARSER_BY_REPO: Readonly<Record<string, keyof typeof LOG_PARSERS>> = {
  'astropy/astropy': 'pytest_v2',
  'scikit-learn/scikit-learn': 'pytest_v2',
  'sphinx-doc/sphinx': 'pytest_v2',
  'django/django': 'django',
  'matplotlib/matplotlib': 'matplotlib',
  'mwaskom/seaborn': 'seaborn',
  'psf/requests': 'pytest_options',
  'pydicom/pydicom': 'pytest_options',
  'pylint-dev/pylint': 'pytest_options',
  'pytest-dev/pytest': 'pytest',
  'pallets/flask': 'pytest',
  'marshmallow-code/marshmallow': 'pytest',
  'pvlib/pvlib-python': 'pytest',
  'pydata/xarray': 'pytest',
  'pylint-dev/astroid': 'pytest',
  'pyvista/pyvista': 'pytest',
  'sqlfluff/sqlfluff': 'pytest',
  'sympy/sympy': 'sympy',
};

/** A parser by its name, `pytest` or SWE-bench's `parse_log_pytest`; null when there is none of that name. */
export function logParser(name: string): Parser | null {
  return LOG_PARSERS[name.replace(/^parse_log_/, '')] ?? null;
}
