import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../lib/errors.js';
import { packageRoot } from '../../../lib/package-root.js';
import { editFileTool } from '../../../tools/edit-file.js';
import { grepTool } from '../../../tools/grep.js';
import { readFileTool } from '../../../tools/read-file.js';
import { runTool } from '../../../tools/run.js';
import { resolveSandbox } from '../../../tools/sandbox/launch/bubblewrap.js';
import { planVisibility } from '../../../tools/sandbox/plan/visibility.js';
import type { CommandPolicy, ToolContext, ToolOutcome } from '../../../tools/types.js';
import { escapeAttempts, type FakeHome, makeFakeHome } from '../../helpers/fake-home.js';
import { openRunSandbox, sandboxContext } from '../../helpers/run-sandbox.js';
import { makeTempDir, writeFiles } from '../../helpers/workspace.js';

// bubblewrap is required here (.ci/run installs it): these tests must fail, not skip, when it cannot run.
const requireBwrap = () =>
  expect(resolveSandbox({ sandbox: 'auto', network: false }).kind, 'bubblewrap (bwrap) is missing or cannot create namespaces here').toBe('bwrap');

/** A run sandbox (bubblewrap) over the fake home's repository, planned from the fake home, PATH and test command. */
function sandboxFor(fake: FakeHome, policy: Partial<CommandPolicy> = {}) {
  const full = { sandbox: 'bwrap' as const, timeoutSeconds: 60, ...policy };
  const sandbox = openRunSandbox(fake.workspace, full, {
    home: fake.home,
    pathValue: fake.pathValue,
    testCmd: fake.testCmd,
    env: { PATH: fake.pathValue, HOME: fake.home, LANG: 'C.UTF-8' },
  });
  const ctx = sandboxContext(fake.workspace, sandbox, { policy: full });
  const run = (command: string) => runTool.execute({ command }, ctx);
  return { sandbox, ctx, run };
}

/** A file tool's outcome, or its error as the tool runner would report it. */
async function attempt(call: () => Promise<ToolOutcome>): Promise<string> {
  try {
    return (await call()).content;
  } catch (error) {
    return `Tool error: ${(error as Error).name}: ${(error as Error).message}`;
  }
}

function fileToolAttempts(fake: FakeHome, ctx: ToolContext): Array<Promise<string>> {
  const paths = [
    'leak',
    'aws-link/credentials',
    'sibling/secret.txt',
    '.env',
    'env-link',
    'config/.env.local',
    '../other-repo/secret.txt',
    '../../.ssh/id_ed25519',
    fake.secrets.npmrc!,
    `/proc/self/root${fake.secrets.ssh}`,
    `/proc/self/cwd/../.env`,
  ];
  return [
    ...paths.map((file) => attempt(() => readFileTool.execute({ path: file, start: 1 }, ctx))),
    ...paths.map((file) => attempt(() => editFileTool.execute({ path: file, old: 'token', new: 'x' }, ctx))),
    attempt(() => grepTool.execute({ pattern: 'token=', path: '.' }, ctx)),
    attempt(() => grepTool.execute({ pattern: 'token=', path: 'config' }, ctx)),
  ];
}

describe('the sandbox shows only what the task needs (real bubblewrap, a home outside /tmp)', () => {
  it('no command or file tool reaches a secret, and the test command still finds its toolchain under the home', async () => {
    requireBwrap();
    const fake = makeFakeHome();
    const { sandbox, ctx, run } = sandboxFor(fake);
    expect(sandbox.visibility).toMatchObject({ toolchains: [path.join(fake.home, '.pyenv')], workspace: fake.workspace, masked: { workspace: 2 } });
    expect(sandbox.description).toContain('toolchains ~/.pyenv');
    for (const command of escapeAttempts(fake)) {
      const result = await run(command);
      expect(result.content, command).not.toContain(fake.canary);
    }
    for (const content of await Promise.all(fileToolAttempts(fake, ctx))) expect(content).not.toContain(fake.canary);
    // Root inside the sandbox owns /etc/shadow, so only the mask keeps it unreadable.
    expect((await run('cat /etc/shadow /etc/gshadow 2>&1; echo end')).content).not.toMatch(/^root:/m);
    const tests = await run(fake.testCmd);
    expect(tests.content).toMatch(/^exit=0\n[\s\S]*Ran 1 test[\s\S]*OK/);
    // The secrets are all still there, untouched (a hard link or a copy would have needed to see them).
    for (const file of Object.values(fake.secrets)) expect(fs.readFileSync(file, 'utf8')).toBe(`token=${fake.canary}\n`);
  }, 120_000);

  it('keeps credential paths, histories and .env files hidden even when the whole home is readable', async () => {
    requireBwrap();
    const fake = makeFakeHome();
    const { ctx, run } = sandboxFor(fake, { readable: ['~'] });
    // Readable now: the sibling repository (the user asked for the whole home).
    expect((await run(`cat ${fake.secrets.sibling}`)).content).toBe(`exit=0\ntoken=${fake.canary}\n`);
    const credentials = await run(
      'cat ~/.ssh/id_ed25519 ~/.aws/credentials ~/.config/gh/hosts.yml ~/.npmrc ~/.bash_history ~/code/.env .env 2>&1; ls ~/.ssh ~/.aws; echo end',
    );
    expect(credentials.content).not.toContain(fake.canary);
    expect(credentials.content).toMatch(/end\n$/);
    expect(await attempt(() => readFileTool.execute({ path: '.env', start: 1 }, ctx))).toMatch(
      /HiddenPathError: ".env" is hidden from the agent: .env files in the workspace are hidden unless permissions.readable names them/,
    );
  }, 60_000);

  it('permissions.readable un-hides a named .env file and permissions.hidden hides more, for commands and file tools alike', async () => {
    requireBwrap();
    const fake = makeFakeHome();
    writeFiles(fake.workspace, {
      '.env.test': 'TEST_DB=sqlite\n',
      'secrets/api.txt': 'hidden-by-rule\n',
      'keys/server.pem': 'pem-by-rule\n',
      'src/app.py': 'print(1)\n',
    });
    const { ctx, run } = sandboxFor(fake, { readable: ['.env.test'], hidden: ['secrets/', '*.pem', '/etc/hostname'] });
    const result = await run('cat .env.test; cat .env secrets/api.txt keys/server.pem 2>&1; cat src/app.py');
    expect((await run('cat /etc/hostname')).content).toMatch(/^exit=1\ncat: \/etc\/hostname: Permission denied\n$/);
    expect(result.content).toContain('TEST_DB=sqlite');
    expect(result.content).toContain('print(1)');
    expect(result.content).not.toMatch(/hidden-by-rule|pem-by-rule|CANARY/);
    expect((await readFileTool.execute({ path: '.env.test', start: 1 }, ctx)).content).toContain('TEST_DB=sqlite');
    expect(await attempt(() => readFileTool.execute({ path: 'secrets/api.txt', start: 1 }, ctx))).toMatch(/hidden by permissions.hidden/);
    expect(await attempt(() => grepTool.execute({ pattern: 'by-rule|token', path: '.' }, ctx))).toBe('No matches.');
  }, 60_000);
});

describe('planVisibility', () => {
  it('lists toolchains found from PATH and the test command, never the home directory itself', () => {
    const fake = makeFakeHome();
    writeFiles(fake.home, {
      'bin/tool': '#!/bin/sh\n',
      '.local/bin/black': '#!/bin/sh\n',
      '.local/lib/python3/site.py': '',
      '.local/share/keyrings/login.keyring': 'x',
    });
    const plan = planVisibility({
      root: fake.workspace,
      policy: { network: false },
      home: fake.home,
      env: {},
      pathValue: `${fake.home}/bin:${fake.home}/.local/bin:${fake.pathValue}`,
      testCmd: 'python -m pytest',
    });
    expect(plan.toolchains).toEqual([
      path.join(fake.home, '.local', 'bin'),
      path.join(fake.home, '.local', 'lib'),
      path.join(fake.home, '.pyenv'),
      path.join(fake.home, 'bin'),
    ]);
    expect(plan.privateHome).toBe(true);
    expect(plan.mounts).toContainEqual({ kind: 'tmpfs', path: fake.home });
    expect(plan.mounts).not.toContainEqual(expect.objectContaining({ kind: 'ro', path: fake.home }));
  });

  it('shows a node_modules folder on PATH as one toolchain, not one folder per package its .bin links point into', () => {
    const fake = makeFakeHome();
    const project = path.join(fake.home, 'tools-project');
    writeFiles(project, { 'node_modules/vitest/vitest.mjs': '', 'node_modules/@scope/cli/bin/cli.js': '', 'node_modules/.bin/.keep': '' });
    fs.symlinkSync('../vitest/vitest.mjs', path.join(project, 'node_modules/.bin/vitest'));
    fs.symlinkSync('../@scope/cli/bin/cli.js', path.join(project, 'node_modules/.bin/cli'));
    const plan = planVisibility({
      root: fake.workspace,
      policy: { network: false },
      home: fake.home,
      env: {},
      pathValue: `${project}/node_modules/.bin:/usr/bin`,
    });
    expect(plan.toolchains).toEqual([path.join(project, 'node_modules')]);
  });

  it("never shows rein's own install as a toolchain, though the node_modules/.bin that started rein is on PATH", () => {
    const fake = makeFakeHome();
    const own = packageRoot();
    const plan = planVisibility({ root: fake.workspace, policy: { network: false }, home: fake.home, env: {}, pathValue: `${own}/node_modules/.bin:/usr/bin` });
    expect(fs.existsSync(path.join(own, 'node_modules', '.bin', 'rein'))).toBe(true);
    // Neither the rein packages its links reach nor rein's dependencies (the folder npm run put on PATH to start rein).
    expect(plan.toolchains.filter((dir) => dir === own || dir.startsWith(`${own}/`))).toEqual([]);
  });

  it('follows a workspace virtualenv to the Python it was made from', () => {
    const fake = makeFakeHome();
    writeFiles(fake.workspace, { '.venv/pyvenv.cfg': `home = ${fake.home}/.pyenv/versions/3.12-stand-in/bin\n` });
    const plan = planVisibility({
      root: fake.workspace,
      policy: { network: false },
      home: fake.home,
      env: {},
      pathValue: '/usr/bin',
      testCmd: '.venv/bin/pytest',
    });
    expect(plan.toolchains).toEqual([path.join(fake.home, '.pyenv', 'versions', '3.12-stand-in')]);
  });

  it('masks credential paths below a readable folder and refuses to show a credential path itself', () => {
    const fake = makeFakeHome();
    const plan = planVisibility({
      root: fake.workspace,
      policy: { network: false, readable: ['~/code', '~/.config'] },
      home: fake.home,
      env: {},
      pathValue: '',
    });
    const masks = plan.mounts.filter((mount) => mount.kind === 'mask').map((mount) => mount.path);
    expect(masks).toEqual(
      expect.arrayContaining([
        fake.secrets.gh!.replace(/\/hosts\.yml$/, ''),
        fake.secrets.outsideEnv,
        fake.secrets.workspaceEnv,
        fake.secrets.workspaceEnvLocal,
      ]),
    );
    expect(masks).not.toContain(fake.secrets.sibling);
    expect(() => planVisibility({ root: fake.workspace, policy: { network: false, readable: ['~/.aws'] }, home: fake.home, env: {}, pathValue: '' })).toThrow(
      UsageError,
    );
    expect(() =>
      planVisibility({ root: fake.workspace, policy: { network: false, readable: ['~/.ssh/id_ed25519'] }, home: fake.home, env: {}, pathValue: '' }),
    ).toThrow(/permissions.readable: .*id_ed25519 cannot be shown to commands: a credential path/);
  });

  it('says which readable paths do not exist instead of ignoring them', () => {
    const root = makeTempDir();
    const plan = planVisibility({ root, policy: { network: false, readable: ['/nonexistent/datasets'] }, env: {}, pathValue: '' });
    expect(plan.missing).toEqual(['/nonexistent/datasets']);
  });
});
