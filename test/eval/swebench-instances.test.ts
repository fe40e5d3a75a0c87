import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shellQuote } from '../../eval/swebench/grade-command.js';
import { loadInstances } from '../../eval/swebench/instance.js';
import { findRepoSource } from '../../eval/swebench/repo-source.js';
import { filesInPatch } from '../../eval/swebench/workspace.js';
import { makeTempDir } from '../../testing/temp-dir.js';

const good = { instance_id: 'o__r-1', repo: 'o/r', base_commit: 'a'.repeat(40), problem_statement: 'p', FAIL_TO_PASS: ['t::a'], PASS_TO_PASS: '["t::b"]' };

function file(name: string, text: string): string {
  const path = join(makeTempDir('rein-swe-inst-'), name);
  writeFileSync(path, text);
  return path;
}

describe('SWE-bench instance records', () => {
  it('reads JSONL and JSON arrays, test lists as arrays or JSON strings, and rein’s own timeouts', () => {
    const jsonl = loadInstances(file('i.jsonl', `${JSON.stringify({ ...good, timeout_s: 60, extra_field: 1 })}\n`));
    expect(jsonl.problems).toEqual([]);
    expect(jsonl.instances[0]).toMatchObject({ FAIL_TO_PASS: ['t::a'], PASS_TO_PASS: ['t::b'], timeout_s: 60, extra_field: 1 });
    expect(loadInstances(file('i.json', JSON.stringify([good]))).instances).toHaveLength(1);
  });

  it('skips hostile or broken records with the reason: ids that would name other folders, bad repos, bad test lists, duplicates', () => {
    const lines = [
      { ...good, instance_id: '../../etc' },
      { ...good, instance_id: 'x2', repo: '../..' },
      { ...good, instance_id: 'x3', FAIL_TO_PASS: 'not json' },
      { ...good, instance_id: 'x4', FAIL_TO_PASS: [] },
      { ...good, instance_id: 'x5', base_commit: 'HEAD; rm -rf /' },
      good,
      good,
    ];
    const { instances, problems } = loadInstances(file('i.jsonl', lines.map((line) => JSON.stringify(line)).join('\n')));
    expect(instances.map((instance) => instance.instance_id)).toEqual(['o__r-1']);
    expect(problems.map((problem) => problem.id)).toEqual(['../../etc', 'x2', 'x3', 'x4', 'x5', 'o__r-1']);
    expect(problems[2]!.problem).toBe('FAIL_TO_PASS: expected array, found "not json"');
    expect(problems[3]!.problem).toMatch(/at least one test/);
    expect(problems[5]!.problem).toMatch(/duplicate instance_id/);
  });

  it('finds a repository as owner__name, owner/name or name, with or without .git, and only if it is a git repository', () => {
    const repos = makeTempDir('rein-swe-repos-');
    mkdirSync(join(repos, 'o__r'));
    expect(findRepoSource(repos, 'o/r')).toBeNull();
    execFileSync('git', ['init', '-q', '--bare', join(repos, 'o', 'r.git')]);
    expect(findRepoSource(repos, 'o/r')).toBe(join(repos, 'o', 'r.git'));
    execFileSync('git', ['init', '-q', join(repos, 'o__r')]);
    expect(findRepoSource(repos, 'o/r')).toBe(join(repos, 'o__r'));
  });

  it('reads the files a test patch touches, and quotes test names as single shell words', () => {
    expect(filesInPatch('diff --git a/t/a.py b/t/a.py\n--- a/t/a.py\n+++ b/t/a.py\ndiff --git a/new.py b/new.py\n')).toEqual(['t/a.py', 'new.py']);
    const name = "tests/x.py::test[it's $(rm -rf /)]";
    expect(execFileSync('bash', ['-c', `printf %s ${shellQuote(name)}`], { encoding: 'utf8' })).toBe(name);
  });
});
