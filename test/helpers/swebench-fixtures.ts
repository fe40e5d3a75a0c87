import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { makeTempDir } from '../../testing/temp-dir.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' }).trim();

function write(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

const nodeTest = (name: string, body: string) =>
  `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\n${body.includes('calc') ? "import * as calc from '../calc.js';\n" : "import * as strs from '../strs.js';\n"}test('${name}', () => {\n${body}\n});\n`;

/**
 * A real small repository with history: a good commit, then a commit that
 * introduces a bug (the instance's base_commit), and the test that catches
 * it as the instance's test_patch (made on a branch, then dropped).
 */
function buggyRepo(dir: string, good: Record<string, string>, bug: Record<string, string>, regression: Record<string, string>) {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q');
  write(dir, good);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'good');
  write(dir, bug);
  git(dir, 'commit', '-q', '-am', 'refactor (introduces the bug)');
  const base = git(dir, 'rev-parse', 'HEAD');
  git(dir, 'checkout', '-q', '-b', 'regression-test');
  write(dir, regression);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'regression test');
  const testPatch = `${git(dir, 'diff', base, 'HEAD')}\n`;
  git(dir, 'checkout', '-q', 'main');
  git(dir, 'branch', '-q', '-D', 'regression-test');
  return { base, testPatch };
}

export interface SweBenchFixture {
  reposDir: string;
  instancesFile: string;
  calcBase: string;
  strsBase: string;
}

/**
 * Two SWE-bench-style instances over two real repositories, one a plain
 * clone named owner__name, one a bare mirror under owner/name.git, plus a
 * record whose commit is missing and a line that is not JSON.
 */
export function makeSweBenchFixture(): SweBenchFixture {
  const root = makeTempDir('rein-swebench-', { until: 'exit' });
  const reposDir = join(root, 'repos');
  const calc = buggyRepo(
    join(reposDir, 'acme__calc'),
    {
      'calc.js': 'export const add = (a, b) => a + b;\nexport const mul = (a, b) => a * b;\n',
      'test/add.test.js': nodeTest('add', '  assert.equal(calc.add(2, 3), 5);'),
    },
    { 'calc.js': 'export const add = (a, b) => a + b;\nexport const mul = (a, b) => a + b;\n' },
    { 'test/mul.test.js': nodeTest('mul', '  assert.equal(calc.mul(2, 3), 6);') },
  );
  const strsWork = join(root, 'strs-work');
  const strs = buggyRepo(
    strsWork,
    {
      'strs.js': 'export const shout = (s) => s.toUpperCase();\n',
      'test/shout.test.js': nodeTest('shout', "  assert.equal(strs.shout('a'), 'A');"),
    },
    { 'strs.js': 'export const shout = (s) => s.toUpperCase();\nexport const whisper = (s) => s.toUpperCase();\n' },
    { 'test/whisper.test.js': nodeTest('whisper', "  assert.equal(strs.whisper('A'), 'a');") },
  );
  mkdirSync(join(reposDir, 'acme'), { recursive: true });
  execFileSync('git', ['clone', '-q', '--mirror', strsWork, join(reposDir, 'acme', 'strs.git')]);
  const record = (id: string, repo: string, base: string, problem: string, testPatch: string, f2p: string[], p2p: string[]) =>
    JSON.stringify({
      instance_id: id,
      repo,
      base_commit: base,
      problem_statement: problem,
      test_patch: testPatch,
      patch: 'the gold patch is ignored',
      // As in SWE-bench's datasets: the lists are JSON strings.
      FAIL_TO_PASS: JSON.stringify(f2p),
      PASS_TO_PASS: JSON.stringify(p2p),
      test_cmd: 'node --test',
      environment_setup_commit: base,
      version: '1.0',
    });
  const instancesFile = join(root, 'instances.jsonl');
  writeFileSync(
    instancesFile,
    [
      record(
        'acme__calc-1',
        'acme/calc',
        calc.base,
        'mul(2, 3) returns 5: it adds instead of multiplying.',
        calc.testPatch,
        ['test/mul.test.js'],
        ['test/add.test.js'],
      ),
      record(
        'acme__strs-2',
        'acme/strs',
        strs.base,
        "whisper('A') should return 'a' but shouts.",
        strs.testPatch,
        ['test/whisper.test.js'],
        ['test/shout.test.js'],
      ),
      record('acme__calc-3', 'acme/calc', 'f'.repeat(40), 'a commit the mirror does not have', '', ['test/x.test.js'], []),
      '{"instance_id": "broken", ',
      '',
    ].join('\n'),
  );
  return { reposDir, instancesFile, calcBase: calc.base, strsBase: strs.base };
}
