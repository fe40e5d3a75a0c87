import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRunSandbox } from '../helpers/run-sandbox.js';
import { makeTempDir } from '../helpers/workspace.js';

// Issue 25, item 5: a `.git` the sandbox can write runs the agent's code on the host at the user's next git command.
const GIT = ['-c', 'user.name=t', '-c', 'user.email=t@example.com'];

function repo(withHooks = true) {
  const root = makeTempDir();
  execFileSync('git', ['init', '-q', root]);
  if (!withHooks) fs.rmSync(path.join(root, '.git', 'hooks'), { recursive: true, force: true });
  fs.writeFileSync(path.join(root, 'a.txt'), 'one\n');
  execFileSync('git', [...GIT, 'add', 'a.txt'], { cwd: root });
  execFileSync('git', [...GIT, 'commit', '-qm', 'first'], { cwd: root });
  const before = fs.readFileSync(path.join(root, '.git', 'config'), 'utf8');
  const sandbox = openRunSandbox(root, { sandbox: 'bwrap' });
  const run = async (command: string) => {
    const result = await sandbox.runCommand(command, { timeoutMs: 20_000, signal: new AbortController().signal, outputCap: 6000 });
    return { exitCode: result.exitCode, output: result.output.finish() };
  };
  return { root, before, run };
}

describe('.git in the sandbox (bubblewrap)', () => {
  it.each([
    ['git config core.fsmonitor', 'git config core.fsmonitor "touch PWNED"'],
    ['git config core.hooksPath', 'git config core.hooksPath /tmp'],
    ['writing .git/config', 'echo "[core] fsmonitor = touch PWNED" >> .git/config'],
    ['planting a hook', 'printf "#!/bin/sh\\ntouch PWNED\\n" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit'],
    ['moving .git aside for a new one', 'mv .git .git-old && mkdir .git'],
  ])('refuses %s', async (_, command) => {
    const { root, before, run } = repo();
    expect((await run(command)).exitCode).not.toBe(0);
    expect(fs.readFileSync(path.join(root, '.git', 'config'), 'utf8')).toBe(before);
    expect(fs.existsSync(path.join(root, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(fs.existsSync(path.join(root, '.git-old'))).toBe(false);
    // The user's next git command on the host runs nothing of the agent's.
    execFileSync('git', [...GIT, 'commit', '--allow-empty', '-qm', 'user'], { cwd: root });
    execFileSync('git', ['status', '--short'], { cwd: root });
    expect(fs.existsSync(path.join(root, 'PWNED'))).toBe(false);
  });

  it('a repository without a hooks folder gets no hook either', async () => {
    const { root, run } = repo(false);
    expect((await run('mkdir -p .git/hooks && printf "#!/bin/sh\\ntouch PWNED\\n" > .git/hooks/pre-commit')).exitCode).not.toBe(0);
    expect(fs.readdirSync(path.join(root, '.git', 'hooks'))).toEqual([]);
  });

  it('keeps what agents need: status, diff, add, commit, stash, log', async () => {
    const { run } = repo();
    const result = await run(
      `echo two >> a.txt && git status --short && git diff --stat && git ${GIT.join(' ')} commit -qam second && echo three >> a.txt && git ${GIT.join(' ')} stash -q && git stash list && git log --oneline | wc -l`,
    );
    expect(result.exitCode).toBe(0);
    expect(result.output).toMatch(/^ M a\.txt\n a\.txt \| 1 \+\n 1 file changed, 1 insertion\(\+\)\nstash@\{0\}: WIP on \w+: [0-9a-f]+ second\n2\n$/);
  });
});
