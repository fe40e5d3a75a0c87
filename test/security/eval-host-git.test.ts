import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyTestPatch, modelPatch } from '../../eval/swebench/workspace.js';
import { makeTempDir } from '../helpers/workspace.js';

// Issue 38, class 1 for rein's own git: after a run, `rein eval` and `rein worker` run git on the host to take the
// agent's patch and to apply the test patch. Whatever the workspace's `.git` holds (the agent had it, unsandboxed, or
// a repository shipped it), none of it may run, hide a change, or reach outside the workspace.

const ID = ['-c', 'user.name=t', '-c', 'user.email=t@example.com'];
const git = (cwd: string, ...args: string[]) => execFileSync('git', [...ID, ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

function task() {
  const root = fs.realpathSync(makeTempDir());
  const marker = fs.realpathSync(makeTempDir());
  git(root, 'init', '-q');
  fs.writeFileSync(path.join(root, 'a.py'), 'x = 1\n');
  fs.writeFileSync(path.join(root, 'b.py'), 'y = 1\n');
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'base');
  const base = git(root, 'rev-parse', 'HEAD').trim();
  // The agent's real work, which the patch must hold whole.
  fs.writeFileSync(path.join(root, 'a.py'), 'x = 2\n');
  fs.writeFileSync(path.join(root, 'new.py'), 'z = 3\n');
  return { root, marker, base };
}

/** An instance's test patch: one file of the base changed, one created. */
const TEST_PATCH = [
  'diff --git a/b.py b/b.py',
  '--- a/b.py',
  '+++ b/b.py',
  '@@ -1 +1 @@',
  '-y = 1',
  '+y = 2',
  'diff --git a/test_a.py b/test_a.py',
  'new file mode 100644',
  '--- /dev/null',
  '+++ b/test_a.py',
  '@@ -0,0 +1 @@',
  '+assert True',
  '',
].join('\n');

const payload = (marker: string, tag: string) => `touch ${marker}/${tag}`;

/** What an agent with a writable `.git` could leave there, each a way to run code or to hide a change from the patch. */
const POISONS: Record<string, (root: string, marker: string) => void> = {
  'a file-system monitor, filters and textconv in the config': (root, marker) => {
    for (const [key, value] of [
      ['core.fsmonitor', payload(marker, 'fsmonitor')],
      ['filter.x.clean', `${payload(marker, 'clean')}; cat`],
      ['filter.x.process', payload(marker, 'process')],
      ['diff.x.textconv', `${payload(marker, 'textconv')}; cat`],
      ['diff.x.command', payload(marker, 'diff-command')],
      ['core.hooksPath', '.githooks'],
    ])
      git(root, 'config', key!, value!);
    fs.mkdirSync(path.join(root, '.git', 'info'), { recursive: true });
    fs.writeFileSync(path.join(root, '.git', 'info', 'attributes'), '* filter=x diff=x\n');
    fs.writeFileSync(path.join(root, '.gitattributes'), '*.py filter=x diff=x\n');
  },
  'a commondir with its own config and hooks': (root, marker) => {
    const other = path.join(root, '.git', 'x');
    fs.mkdirSync(path.join(other, 'hooks'), { recursive: true });
    fs.cpSync(path.join(root, '.git', 'refs'), path.join(other, 'refs'), { recursive: true });
    fs.copyFileSync(path.join(root, '.git', 'HEAD'), path.join(other, 'HEAD'));
    fs.symlinkSync('../objects', path.join(other, 'objects'));
    fs.writeFileSync(
      path.join(other, 'config'),
      `[core]\n\tfsmonitor = ${payload(marker, 'commondir')}\n[filter "x"]\n\tclean = ${payload(marker, 'commondir-clean')}; cat\n`,
    );
    fs.mkdirSync(path.join(other, 'info'));
    fs.writeFileSync(path.join(other, 'info', 'attributes'), '* filter=x\n');
    fs.writeFileSync(path.join(root, '.git', 'commondir'), 'x\n');
  },
  'hooks in place': (root, marker) => {
    for (const hook of ['post-index-change', 'post-checkout', 'reference-transaction', 'pre-commit']) {
      fs.writeFileSync(path.join(root, '.git', 'hooks', hook), `#!/bin/sh\n${payload(marker, hook)}\n`, { mode: 0o755 });
    }
  },
  'a gitlink to a nested repository with a monitor': (root, marker) => {
    git(root, 'init', '-q', 'sub');
    git(path.join(root, 'sub'), 'commit', '-q', '--allow-empty', '-m', 's');
    git(path.join(root, 'sub'), 'config', 'core.fsmonitor', payload(marker, 'gitlink'));
    git(root, 'update-index', '--add', '--cacheinfo', `160000,${git(path.join(root, 'sub'), 'rev-parse', 'HEAD').trim()},sub`);
  },
  'a change hidden by skip-worktree, an exclude line and replace refs': (root) => {
    git(root, 'update-index', '--skip-worktree', 'a.py');
    fs.writeFileSync(path.join(root, '.git', 'info', 'exclude'), 'new.py\n');
    const forged = git(root, 'commit-tree', '-m', 'forged', git(root, 'write-tree').trim()).trim();
    git(root, 'replace', git(root, 'rev-parse', 'HEAD').trim(), forged);
  },
};

describe('rein’s own git on a workspace the agent had (rein eval, rein worker)', () => {
  it.each(Object.keys(POISONS))('%s: nothing runs, nothing is hidden from the patch', (name) => {
    const { root, marker, base } = task();
    POISONS[name]!(root, marker);
    const patch = modelPatch(root, base);
    expect(fs.readdirSync(marker)).toEqual([]);
    expect(patch).toContain('+x = 2');
    expect(patch).toContain('+z = 3');
    expect(patch).not.toContain('sub');
    applyTestPatch(root, base, TEST_PATCH);
    expect(fs.readdirSync(marker)).toEqual([]);
    expect(fs.readFileSync(path.join(root, 'b.py'), 'utf8')).toBe('y = 2\n');
    expect(fs.readFileSync(path.join(root, 'test_a.py'), 'utf8')).toBe('assert True\n');
  });

  it('the test patch never deletes through a folder the agent made a link to somewhere else', () => {
    const { root, base } = task();
    const outside = fs.realpathSync(makeTempDir());
    fs.writeFileSync(path.join(outside, 'test_new.py'), 'precious\n');
    fs.symlinkSync(outside, path.join(root, 'tests'));
    const testPatch =
      'diff --git a/tests/test_new.py b/tests/test_new.py\nnew file mode 100644\n--- /dev/null\n+++ b/tests/test_new.py\n@@ -0,0 +1 @@\n+def test_it(): pass\n';
    expect(() => applyTestPatch(root, base, testPatch)).toThrow(/beyond a symbolic link|already exists/);
    expect(fs.readFileSync(path.join(outside, 'test_new.py'), 'utf8')).toBe('precious\n');
  });

  it('the patch is the plain diff of an ordinary repository, and it applies to a fresh checkout', () => {
    const { root, base } = task();
    fs.rmSync(path.join(root, 'b.py'));
    const patch = modelPatch(root, base);
    const fresh = fs.realpathSync(makeTempDir());
    git(fresh, 'clone', '-q', root, '.');
    git(fresh, 'checkout', '-q', base);
    execFileSync('git', ['apply', '-'], { cwd: fresh, input: patch });
    expect(fs.readFileSync(path.join(fresh, 'a.py'), 'utf8')).toBe('x = 2\n');
    expect(fs.existsSync(path.join(fresh, 'b.py'))).toBe(false);
    expect(fs.readFileSync(path.join(fresh, 'new.py'), 'utf8')).toBe('z = 3\n');
  });
});
