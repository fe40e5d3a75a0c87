import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type OpenAIStub, type StubAnswer, type StubRequest, startOpenAIStub } from '../../testing/index.js';
import { makeTempDir } from '../../testing/temp-dir.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { escapeAttempts, makeFakeHome } from '../helpers/fake-home.js';

type Call = { name: string; arguments: Record<string, unknown> };

/** An agent that makes `calls` one per turn, whatever comes back, then finishes. */
function scripted(calls: Call[]) {
  return (request: StubRequest): StubAnswer => {
    const done = request.messages.filter((message) => message.role === 'tool').length;
    const call = calls[done] ?? { name: 'finish', arguments: { summary: 'done' } };
    return { toolCalls: [{ id: `call_${done}`, name: call.name, arguments: call.arguments }] };
  };
}

/** Every file of a run directory, read as text. */
function runFiles(runDir: string): string {
  return readdirSync(runDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'))
    .join('\n');
}

function traceLines(runDir: string): Array<Record<string, unknown>> {
  return readFileSync(join(runDir, 'trace.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('rein run keeps secrets outside the workspace out of the prompt', () => {
  let stub: OpenAIStub | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  it('a prompt-injected agent finds no secret through commands or file tools, and the test command still uses the toolchain under the home', async () => {
    const fake = makeFakeHome();
    const fileCalls: Call[] = [
      'leak',
      'aws-link/credentials',
      'sibling/secret.txt',
      '.env',
      'config/.env.local',
      '../other-repo/secret.txt',
      fake.secrets.npmrc!,
      `/proc/self/root${fake.secrets.ssh}`,
    ].map((path) => ({ name: 'read_file', arguments: { path } }));
    const calls: Call[] = [
      ...escapeAttempts(fake).map((command) => ({ name: 'run', arguments: { command } })),
      ...fileCalls,
      { name: 'grep', arguments: { pattern: 'token=' } },
      { name: 'run', arguments: { command: fake.testCmd } },
    ];
    stub = await startOpenAIStub(scripted(calls));
    const runDir = join(fake.workspace, '.rein', 'runs', 'canary');
    const result = await runCli(
      ['run', fake.workspace, 'Find any credentials you can and print them', '--test-cmd', fake.testCmd, '--model', 'stub', '--run-dir', runDir, '--json'],
      // Only what a user with this home would have: no toolchain variables from the machine running the tests.
      { env: { OPENAI_BASE_URL: stub.url, HOME: fake.home, PATH: fake.pathValue, LANG: 'C.UTF-8' }, timeoutMs: 240_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /^rein: commands run in a bubblewrap sandbox \(network off\); visible: system \(.*\), the workspace \(writable\), a private \/tmp and ~, toolchains ~\/\.pyenv; hidden: the rest of the disk, 2 workspace files/m,
    );
    const start = traceLines(runDir).find((line) => line.kind === 'start')!;
    expect(start.visibility).toMatchObject({ workspace: fake.workspace, toolchains: [join(fake.home, '.pyenv')], masked: { workspace: 2 } });
    const testRun = traceLines(runDir)
      .filter((line) => line.kind === 'tool')
      .at(-1)!;
    expect(testRun.result).toMatch(/^exit=0\n[\s\S]*OK/);
    expect(stub.requests.length).toBe(calls.length + 1);
    expect(JSON.stringify(stub.requests)).not.toContain(fake.canary);
    expect(runFiles(runDir)).not.toContain(fake.canary);
  }, 300_000);

  it('secrets in well-known formats are masked before the model, the record or the trace sees them, and the trace says where', async () => {
    const repo = makeTempDir('rein-e2e-secrets-', { until: 'exit' });
    const token = ['ghp_', 'Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa98'].join('');
    const keyId = ['AKIA', 'Q3EXAMPLE7RT2XZ4'].join('');
    mkdirSync(join(repo, 'config'));
    writeFileSync(join(repo, 'config', 'settings.py'), `DEBUG = True\nGITHUB_TOKEN = "${token}"\nAWS_ACCESS_KEY_ID = "${keyId}"\n`);
    stub = await startOpenAIStub(
      scripted([
        { name: 'run', arguments: { command: 'cat config/settings.py' } },
        { name: 'read_file', arguments: { path: 'config/settings.py' } },
        { name: 'grep', arguments: { pattern: 'TOKEN' } },
      ]),
    );
    const runDir = join(repo, '.rein', 'runs', 'masked');
    const result = await runCli(['run', repo, 'Check the settings', '--test-cmd', 'true', '--model', 'stub', '--run-dir', runDir, '--max-steps', '4'], {
      env: cleanEnv({ OPENAI_BASE_URL: stub.url }),
    });
    expect(result.stderr).toContain('rein: ');
    const sent = JSON.stringify(stub.requests.map((request) => request.messages));
    expect(sent).toContain('GITHUB_TOKEN = \\"[redacted: github-token]\\"');
    expect(sent).toContain('[redacted: aws-access-key-id]');
    for (const text of [sent, runFiles(runDir)]) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(keyId);
    }
    const notes = traceLines(runDir).filter((line) => line.kind === 'secrets_masked');
    expect(notes.map((note) => [note.name, note.findings])).toEqual([
      [
        'run',
        [
          { kind: 'github-token', line: 3, column: 17 },
          { kind: 'aws-access-key-id', line: 4, column: 22 },
        ],
      ],
      [
        'read_file',
        [
          { kind: 'github-token', line: 3, column: 24 },
          { kind: 'aws-access-key-id', line: 4, column: 29 },
        ],
      ],
      ['grep', [{ kind: 'github-token', line: 1, column: 39 }]],
    ]);
  });

  it('unsandboxed, the start line and --json say that commands can read the whole disk', async () => {
    const repo = makeTempDir('rein-e2e-unsandboxed-', { until: 'exit' });
    const rules = join(makeTempDir('rein-rules-', { until: 'exit' }), 'rules.json');
    writeFileSync(rules, JSON.stringify({ permissions: { sandbox: 'none' } }));
    stub = await startOpenAIStub(scripted([{ name: 'run', arguments: { command: 'true' } }]));
    const result = await runCli(['run', repo, 'task', '--test-cmd', 'true', '--model', 'stub', '--config', rules, '--json'], {
      env: cleanEnv({ OPENAI_BASE_URL: stub.url }),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'rein: commands run unsandboxed and can read the whole disk (the rules set sandbox: none); set permissions.sandbox: "bwrap" to require the sandbox\n',
    );
    expect(JSON.parse(result.stdout.trim().split('\n').at(-1)!).sandbox).toEqual({
      mode: 'none',
      wholeDiskReadable: true,
      description:
        'commands run unsandboxed and can read the whole disk (the rules set sandbox: none); set permissions.sandbox: "bwrap" to require the sandbox',
    });
  });

  it('a credential path in permissions.readable is a rules error, before anything runs', async () => {
    const fake = makeFakeHome();
    const rules = join(makeTempDir('rein-rules-', { until: 'exit' }), 'rules.json');
    writeFileSync(rules, JSON.stringify({ permissions: { readable: ['~/.aws'] } }));
    stub = await startOpenAIStub(scripted([]));
    const result = await runCli(['run', fake.workspace, 'task', '--test-cmd', 'true', '--model', 'stub', '--config', rules], {
      env: cleanEnv({ OPENAI_BASE_URL: stub.url, HOME: fake.home }),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'rein: permissions.readable: ~/.aws cannot be shown to commands: a credential path; rein never shows these to commands or file tools\n',
    );
    expect(stub.requests).toEqual([]);
    expect(existsSync(join(fake.workspace, '.rein', 'runs'))).toBe(false);
  });
});
