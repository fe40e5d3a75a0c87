import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PathEscapeError } from '../../lib/errors.js';
import { call, reply, runScripted } from '../../testing/index.js';
import { editFileTool } from '../../tools/edit-file.js';
import { checkHostFiles, takeHostFilesBaseline } from '../../tools/sandbox/watch/host-run-files.js';
import { openRunSandbox } from '../helpers/run-sandbox.js';
import { makeContext, makeTempDir } from '../helpers/workspace.js';

// Issue 38, class 1: the host never runs what the sandbox could write. git reads configuration, hooks, attributes,
// a `commondir`, the index and nested repositories from the workspace; the user's next plain git command (and rein's
// own) must run none of what a command or a file tool planted there.

const ID = ['-c', 'user.name=t', '-c', 'user.email=t@example.com'];

interface Lab {
  root: string;
  home: string;
  /** A folder the sandbox cannot see: a payload that runs on the host leaves a file here. */
  marker: string;
  env: NodeJS.ProcessEnv;
}

function lab(options: { repository?: boolean; husky?: boolean } = {}): Lab {
  const root = fs.realpathSync(makeTempDir());
  const home = fs.realpathSync(makeTempDir());
  const marker = fs.realpathSync(makeTempDir());
  const env = { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1', XDG_CONFIG_HOME: path.join(home, '.config') };
  if (options.husky) fs.writeFileSync(path.join(home, '.gitconfig'), '[core]\n\thooksPath = .husky\n');
  fs.writeFileSync(path.join(root, 'a.txt'), 'one\n');
  if (options.repository !== false) {
    git(root, env, 'init', '-q');
    git(root, env, 'add', 'a.txt');
    git(root, env, 'commit', '-qm', 'first');
  }
  if (options.husky) {
    fs.mkdirSync(path.join(root, '.husky'));
    fs.writeFileSync(path.join(root, '.husky', 'pre-commit'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  }
  return { root, home, marker, env };
}

function git(cwd: string, env: NodeJS.ProcessEnv, ...args: string[]) {
  return execFileSync('git', [...ID, ...args], { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Every file under `.git` folders, hashed: what the user's git reads. */
function gitTree(root: string): string {
  const hash = crypto.createHash('sha256');
  const walk = (dir: string) => {
    for (const name of fs.readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      const stat = fs.lstatSync(full);
      hash.update(`${path.relative(root, full)}:${stat.mode}\n`);
      if (stat.isDirectory()) walk(full);
      else if (stat.isSymbolicLink()) hash.update(fs.readlinkSync(full));
      else hash.update(fs.readFileSync(full));
    }
  };
  walk(path.join(root, '.git'));
  return hash.digest('hex');
}

/** What a person does next on the host, in the workspace and in every folder below it: none of it may run a payload. */
function userGitRunsNothing(lab: Lab): string[] {
  const dirs = [lab.root];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && !entry.name.startsWith('.git')) {
        dirs.push(path.join(dir, entry.name));
        walk(path.join(dir, entry.name));
      }
    }
  };
  walk(lab.root);
  for (const dir of dirs) {
    for (const args of [
      ['status'],
      ['diff'],
      ['log', '-1', '-p'],
      ['add', '-A'],
      ['commit', '-qm', 'user', '--allow-empty'],
      ['checkout', '--', '.'],
      ['status'],
    ]) {
      spawnSync('git', [...ID, ...args], { cwd: dir, env: lab.env, stdio: 'ignore', timeout: 20_000 });
    }
  }
  return fs.readdirSync(lab.marker);
}

async function inSandbox(lab: Lab, script: string) {
  const sandbox = openRunSandbox(lab.root, { sandbox: 'bwrap' }, { env: lab.env, home: lab.home });
  const result = await sandbox.runCommand(script, { timeoutMs: 30_000, signal: new AbortController().signal, outputCap: 8000 });
  await sandbox.dispose();
  return { exitCode: result.exitCode, output: result.output.finish() };
}

/** Runs the attack in the sandbox, then what the run does at its end, then what the user does next. */
async function attack(lab: Lab, script: string) {
  const baseline = takeHostFilesBaseline(lab.root);
  const ran = await inSandbox(lab, script);
  const report = checkHostFiles(lab.root, baseline);
  const tree = fs.existsSync(path.join(lab.root, '.git')) ? gitTree(lab.root) : null;
  return { ran, report, tree, payloads: userGitRunsNothing(lab) };
}

/** Shell that makes `dir` (a gitdir) run a payload from every place git takes code from. */
function plantEverything(dir: string, marker: string, tag: string): string {
  const payload = `touch ${marker}/${tag}`;
  return [
    `git config --file ${dir}/config core.fsmonitor '${payload}-fsmonitor'`,
    `git config --file ${dir}/config filter.x.clean '${payload}-filter; cat'`,
    `git config --file ${dir}/config diff.x.textconv '${payload}-textconv; cat'`,
    `git config --file ${dir}/config core.pager '${payload}-pager; cat'`,
    `mkdir -p ${dir}/info ${dir}/hooks && echo '* filter=x diff=x' >> ${dir}/info/attributes`,
    ...['post-index-change', 'pre-commit', 'post-checkout', 'reference-transaction'].map(
      (hook) => `printf '#!/bin/sh\\n${payload}-${hook}\\n' > ${dir}/hooks/${hook} && chmod +x ${dir}/hooks/${hook}`,
    ),
  ]
    .map((line) => `(${line}) 2>/dev/null`)
    .join('\n');
}

/** The ways to make git read from a place the agent controls, each from inside the sandbox. */
const REDIRECTIONS: Record<string, (marker: string) => string> = {
  'the config and hooks in place': (marker) => plantEverything('.git', marker, 'in-place'),
  'a commondir inside .git': (marker) =>
    `mkdir -p .git/x && cp -r .git/refs .git/HEAD .git/x/ 2>/dev/null; ln -s ../objects .git/x/objects 2>/dev/null; ${plantEverything('.git/x', marker, 'commondir')}; echo x > .git/commondir`,
  'config.worktree switched on': (marker) =>
    `git config extensions.worktreeConfig true; git config --worktree core.fsmonitor 'touch ${marker}/worktree-config'; echo '[core] fsmonitor = touch ${marker}/worktree-config' > .git/config.worktree`,
  'a gitlink to a nested repository': (marker) =>
    `git init -q sub && (cd sub && git ${ID.join(' ')} commit -q --allow-empty -m s) && ${plantEverything('sub/.git', marker, 'gitlink')} && git update-index --add --cacheinfo 160000,$(git -C sub rev-parse HEAD),sub`,
  'an untracked nested repository': (marker) => `mkdir -p deep/er && git init -q deep/er/repo && ${plantEverything('deep/er/repo/.git', marker, 'nested')}`,
  'a nested .git file pointing at a gitdir the agent wrote': (marker) =>
    `git init -q --bare .hidden-gitdir && ${plantEverything('.hidden-gitdir', marker, 'gitdir-file')} && mkdir -p pkg && echo 'gitdir: ../.hidden-gitdir' > pkg/.git && git config --file .hidden-gitdir/config core.bare false && git config --file .hidden-gitdir/config core.worktree "$PWD/pkg"`,
  'an embedded bare repository': (marker) => `git init -q --bare embedded && ${plantEverything('embedded', marker, 'bare')}`,
  'a symlinked reflog pointing outside': (marker) => `rm -f .git/logs/HEAD; ln -s ${marker}/reflog-written .git/logs/HEAD`,
  'a crafted index entry naming a hook': (marker) =>
    `blob=$(printf '#!/bin/sh\\ntouch ${marker}/index-hook\\n' | git hash-object -w --stdin) && git update-index --add --cacheinfo 100755,$blob,.git/hooks/post-checkout`,
  'moving .git aside for another': (marker) => `mv .git .git-old; git init -q . && ${plantEverything('.git', marker, 'replaced')}`,
};

describe('the user’s next git command runs nothing the sandbox wrote (bubblewrap)', () => {
  it.each(Object.keys(REDIRECTIONS))('%s', async (name) => {
    const repo = lab();
    const before = gitTree(repo.root);
    const { payloads, tree } = await attack(repo, REDIRECTIONS[name]!(repo.marker));
    expect(payloads).toEqual([]);
    expect(tree).toBe(before);
  });

  it('generated combinations of redirection, location and spelling run nothing on the host', async () => {
    const spellings = fc.constantFrom('.git', './.git', '.git/.', 'alias', 'x/../.git');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(REDIRECTIONS)), spellings, fc.boolean(), async (name, spelling, twice) => {
        const repo = lab();
        const dir = spelling === 'alias' ? 'alias' : spelling;
        const prefix = spelling === 'alias' ? 'ln -s .git alias; ' : spelling.startsWith('x/') ? 'mkdir -p x; ' : '';
        const script = prefix + REDIRECTIONS[name]!(repo.marker).replaceAll('.git/', `${dir}/`);
        const { payloads } = await attack(repo, twice ? `${script}\n${script}` : script);
        expect(payloads).toEqual([]);
      }),
      { numRuns: 12 },
    );
    // Twelve sandboxed attacks and twelve host gits: seconds alone, over the default 30 s on a loaded two-core machine.
  }, 180_000);

  it('commands can still use git: status, diff, add, commit, stash, log, and the real .git is never written', async () => {
    const repo = lab();
    const before = gitTree(repo.root);
    const { ran, tree } = await attack(
      repo,
      `echo two >> a.txt && git status --short && git diff --stat && git ${ID.join(' ')} commit -qam second && echo three >> a.txt && git ${ID.join(' ')} stash -q && git stash list && git log --oneline | wc -l`,
    );
    expect(ran.exitCode).toBe(0);
    expect(ran.output).toMatch(/^ M a\.txt\n a\.txt \| 1 \+\n 1 file changed, 1 insertion\(\+\)\nstash@\{0\}: WIP on \w+: [0-9a-f]+ second\n2\n$/);
    expect(tree).toBe(before);
    // The work is in the files (the commit and the stash stayed in the sandbox's copy).
    expect(fs.readFileSync(path.join(repo.root, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
  });

  it('a repository created during the run is moved aside and reported, in a workspace that had none', async () => {
    const plain = lab({ repository: false });
    const { report, payloads } = await attack(plain, `git init -q . && ${plantEverything('.git', plain.marker, 'init')}`);
    expect(payloads).toEqual([]);
    expect(report.quarantined).toEqual([{ path: '.git', kind: 'dir', movedTo: '.git.rein-quarantined' }]);
    expect(fs.existsSync(path.join(plain.root, '.git'))).toBe(false);
  });

  it('what the user’s git configuration names in the workspace (husky’s core.hooksPath) is read-only', async () => {
    const repo = lab({ husky: true });
    const { ran, payloads } = await attack(repo, `printf '#!/bin/sh\\ntouch ${repo.marker}/husky\\n' > .husky/pre-commit`);
    expect(ran.exitCode).not.toBe(0);
    expect(payloads).toEqual([]);
  });

  it('changed host-run files are named at the end', async () => {
    const repo = lab();
    const { report } = await attack(repo, 'mkdir -p .vscode && echo "{}" > .vscode/tasks.json && echo "echo hi" > .envrc');
    expect(report.changed).toEqual(
      expect.arrayContaining([
        { path: '.vscode/tasks.json', change: 'created' },
        { path: '.envrc', change: 'created' },
      ]),
    );
  });
});

describe('a whole run (bubblewrap)', () => {
  it('moves aside the repository its agent made, says so in the trace, and the user’s git runs nothing', async () => {
    const repo = lab();
    const run = await runScripted({
      workspace: repo.root,
      testCmd: 'true',
      rules: { permissions: { sandbox: 'bwrap' } },
      script: [
        reply(call('run', { command: `git init -q tools/vendored && ${plantEverything('tools/vendored/.git', repo.marker, 'run').replaceAll('\n', ' ; ')}` })),
        reply(call('finish', { summary: 'done' })),
      ],
    });
    expect(run.lines('host_files')).toEqual([
      expect.objectContaining({ quarantined: [{ path: 'tools/vendored/.git', kind: 'dir', movedTo: 'tools/vendored/.git.rein-quarantined' }] }),
    ]);
    expect(userGitRunsNothing(repo)).toEqual([]);
  }, 60_000);
});

describe('rein’s file tools refuse what the sandbox shows read-only', () => {
  const spellings = [
    '.git/config',
    './.git/config',
    '.git//config',
    'src/../.git/config',
    '.GIT/config',
    'alias/config',
    'vendor/lib/.git/config',
    '.husky/pre-commit',
    '.mcp.json',
    'alias-husky/pre-commit',
  ];

  it.each(spellings)('edit_file %s', async (spelling) => {
    const repo = lab({ husky: true });
    execFileSync('git', ['init', '-q', path.join(repo.root, 'vendor', 'lib')]);
    fs.mkdirSync(path.join(repo.root, 'src'));
    fs.mkdirSync(path.join(repo.root, '.GIT'));
    fs.writeFileSync(path.join(repo.root, '.GIT', 'config'), '[core]\n');
    fs.writeFileSync(path.join(repo.root, '.mcp.json'), '{"mcpServers":{}}\n');
    fs.symlinkSync('.git', path.join(repo.root, 'alias'));
    fs.symlinkSync('.husky', path.join(repo.root, 'alias-husky'));
    const file = path.join(repo.root, spelling);
    const before = fs.readFileSync(file, 'utf8');
    const old = before.slice(0, 6);
    const ctx = makeContext(repo.root, { protectedFiles: [path.join(repo.root, '.husky')] });
    await expect(editFileTool.execute({ path: spelling, old, new: `${old} fsmonitor = touch ${repo.marker}/edit\n` }, ctx)).rejects.toThrow(PathEscapeError);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
  });
});
