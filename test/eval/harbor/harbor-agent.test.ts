import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atifTrajectorySchema } from '../../../telemetry/atif/atif-schema.js';
import { type OpenAIStub, startOpenAIStub } from '../../../testing/index.js';
import { cleanEnv, repoRoot } from '../../helpers/cli.js';
import { fixesAdd } from '../../helpers/fixes-add.js';
import { makeTempDir } from '../../helpers/workspace.js';

const harbor = join(repoRoot, 'eval', 'harbor');
const MEMORY_SERVER = join(repoRoot, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');

function sh(command: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * A fresh directory stands in for the task container: the bundle and a Node tarball staged
 * where the Python class uploads them, an image whose own node is too old, the install script,
 * then the run command against a local OpenAI-compatible stub, and the files Harbor reads.
 */
describe('the Harbor installed agent, without Docker', () => {
  let stub: OpenAIStub;
  beforeAll(async () => {
    stub = await startOpenAIStub(fixesAdd);
  });
  afterAll(async () => {
    await stub.close();
  });

  it('installs offline from the staged tarballs (Node from its tarball: the image has 18; rein from the bundle), then the run command fixes the task unattended and leaves trajectory.json, the summary and the events where Harbor reads them', async () => {
    const container = makeTempDir('rein-harbor-container-');
    const staged = join(container, 'installed-agent');
    mkdirSync(staged, { recursive: true });
    const packed = await sh('bash', [join(harbor, 'pack-rein.sh'), join(staged, 'rein-bundle.tar')], process.env);
    expect(packed.code, packed.stderr).toBe(0);
    // The Node tarball's layout (node-vX-linux-x64/bin/node), its binary linked to this machine's node.
    const nodeTree = join(makeTempDir('rein-harbor-node-'), 'node-v20.20.2-linux-x64');
    mkdirSync(join(nodeTree, 'bin'), { recursive: true });
    symlinkSync(process.execPath, join(nodeTree, 'bin', 'node'));
    expect(spawnSync('tar', ['-cf', join(staged, 'node-v20.20.2-linux-x64.tar.gz'), '-C', join(nodeTree, '..'), 'node-v20.20.2-linux-x64']).status).toBe(0);
    // The image's own node is 18: the script must not settle for it.
    const oldNode = join(container, 'usr-bin');
    mkdirSync(oldNode);
    writeFileSync(join(oldNode, 'node'), '#!/bin/sh\necho 18\n');
    chmodSync(join(oldNode, 'node'), 0o755);
    mkdirSync(join(container, 'root'));
    const env = cleanEnv({ HOME: join(container, 'root'), PATH: `${oldNode}:${process.env.PATH}`, REIN_LINK_BIN: '0' });
    const install = await sh('bash', [join(harbor, 'install-rein.sh')], {
      ...env,
      REIN_PREFIX: join(container, 'opt', 'rein'),
      REIN_STAGED_DIR: staged,
      REIN_TARBALL: join(staged, 'rein-bundle.tar'),
    });
    expect(install.code, install.stderr).toBe(0);
    expect(install.stdout.trim()).toBe('INSTALL SUCCESS!');
    expect(install.stderr).toMatch(/installed node v20\.\d+\.\d+ from .*node-v20\.20\.2-linux-x64\.tar\.gz/);
    const version = spawnSync(join(container, 'opt', 'rein', 'bin', 'rein'), ['--version'], { env, encoding: 'utf8' });
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version);
    expect(readFileSync(join(container, 'root', '.bashrc'), 'utf8')).toContain(`${join(container, 'opt', 'rein', 'bin')}:`);

    const app = join(container, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'add.js'), 'export function add(a, b) {\n  return a - b;\n}\n');
    writeFileSync(
      join(app, 'add.test.js'),
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from './add.js';\ntest('adds', () => assert.equal(add(2, 3), 5));\n",
    );
    const logs = join(container, 'logs', 'agent');
    const run = await sh(
      join(container, 'opt', 'rein', 'bin', 'rein-harbor-run'),
      ['Fix add() so that node --test passes.'],
      {
        ...env,
        PATH: `${join(container, 'opt', 'rein', 'bin')}:${env.PATH}`,
        REIN_LOGS_DIR: logs,
        REIN_TEST_CMD: 'node --test',
        REIN_MODEL: 'stub-model',
        OPENAI_BASE_URL: stub.url,
      },
      app,
    );
    expect(run.code, readFileSync(join(logs, 'rein-stderr.txt'), 'utf8')).toBe(0);
    expect(readFileSync(join(app, 'add.js'), 'utf8')).toContain('a + b');
    const trajectory = atifTrajectorySchema.parse(JSON.parse(readFileSync(join(logs, 'trajectory.json'), 'utf8')));
    expect(trajectory.agent).toMatchObject({ name: 'rein', model_name: 'stub-model' });
    expect(trajectory.steps.filter((step) => step.source === 'agent')).toHaveLength(4);
    const summary = JSON.parse(readFileSync(join(logs, 'rein-summary.json'), 'utf8'));
    expect(summary).toMatchObject({ status: 'done', exitCode: 0, steps: 4 });
    const events = readFileSync(join(logs, 'rein-events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.at(-1)).toMatchObject({ kind: 'end', status: 'done' });
    // The Python class Harbor imports reads these very files into its AgentContext, and rein's --version into version().
    const python = spawnSync(
      'python3',
      [
        '-c',
        [
          'import json, sys',
          `sys.path[:0] = ['${join(harbor, 'tests', 'stub')}', '${harbor}']`,
          'from rein_agent import ReinAgent',
          'from harbor.models.agent.context import AgentContext',
          'context = AgentContext()',
          `agent = ReinAgent(logs_dir='${logs}')`,
          'agent.populate_context_post_run(context)',
          `print(json.dumps({**context.__dict__, "version": agent.parse_version(${JSON.stringify(version.stdout)})}))`,
        ].join('\n'),
      ],
      { encoding: 'utf8', env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } },
    );
    expect(python.status, python.stderr).toBe(0);
    expect(JSON.parse(python.stdout)).toMatchObject({
      n_input_tokens: summary.usage.promptTokens,
      n_cache_tokens: summary.usage.cachedTokens,
      n_output_tokens: summary.usage.completionTokens,
      metadata: { rein: { status: 'done', exitCode: 0, session_id: trajectory.session_id } },
      version: JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version,
    });

    // A task's MCP server (Harbor's MCPServerConfig) becomes the rules file the class stages; rein-harbor-run starts it.
    const staged2 = join(container, 'staged-mcp');
    const rulesFile = spawnSync(
      'python3',
      [
        '-c',
        [
          'import sys',
          `sys.path[:0] = ['${join(harbor, 'tests', 'stub')}', '${harbor}']`,
          'from rein_agent import ReinAgent',
          'from harbor.models.task.config import MCPServerConfig',
          `server = MCPServerConfig(name='memory', transport='stdio', command='${process.execPath}', args=['${MEMORY_SERVER}'])`,
          `print(ReinAgent(logs_dir='${staged2}', mcp_servers=[server]).write_task_rules())`,
        ].join('\n'),
      ],
      { encoding: 'utf8', env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } },
    );
    expect(rulesFile.status, rulesFile.stderr).toBe(0);
    const mcpLogs = join(container, 'logs', 'mcp');
    const app3 = join(container, 'app3');
    mkdirSync(app3);
    writeFileSync(join(app3, 'add.js'), readFileSync(join(app, 'add.js'), 'utf8').replace('a + b', 'a - b'));
    writeFileSync(join(app3, 'add.test.js'), readFileSync(join(app, 'add.test.js'), 'utf8'));
    const withMcp = await sh(
      join(container, 'opt', 'rein', 'bin', 'rein-harbor-run'),
      ['Fix add() so that node --test passes.'],
      {
        ...env,
        PATH: `${join(container, 'opt', 'rein', 'bin')}:${env.PATH}`,
        REIN_LOGS_DIR: mcpLogs,
        REIN_TEST_CMD: 'node --test',
        REIN_MODEL: 'stub-model',
        REIN_CONFIG: rulesFile.stdout.trim(),
        OPENAI_BASE_URL: stub.url,
      },
      app3,
    );
    expect(withMcp.code, readFileSync(join(mcpLogs, 'rein-stderr.txt'), 'utf8')).toBe(0);
    const mcpEvents = readFileSync(join(mcpLogs, 'rein-events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(mcpEvents).toContainEqual(expect.objectContaining({ kind: 'mcp_server', server: 'memory', state: 'ready' }));
    expect(mcpEvents.find((event) => event.kind === 'mcp_tools' && event.change === 'offered')?.tools).toContainEqual(
      expect.objectContaining({ server: 'memory', tool: 'read_graph' }),
    );

    // A rein that dies without writing its trajectory: the run command exports it from the trace left behind.
    const app2 = join(container, 'app2');
    mkdirSync(app2);
    writeFileSync(join(app2, 'add.js'), readFileSync(join(app, 'add.js'), 'utf8').replace('a + b', 'a - b'));
    writeFileSync(join(app2, 'add.test.js'), readFileSync(join(app, 'add.test.js'), 'utf8'));
    const dying = join(container, 'dying-rein');
    const crashedLogs = join(container, 'logs', 'crashed');
    writeFileSync(
      dying,
      `#!/bin/sh\nif [ "$1" = run ]; then "${join(container, 'opt', 'rein', 'bin', 'rein')}" "$@"; rm -f "${crashedLogs}/trajectory.json"; exit 137; fi\nexec "${join(container, 'opt', 'rein', 'bin', 'rein')}" "$@"\n`,
    );
    chmodSync(dying, 0o755);
    const died = await sh(
      join(container, 'opt', 'rein', 'bin', 'rein-harbor-run'),
      ['Fix add() so that node --test passes.'],
      { ...env, REIN_BIN: dying, REIN_LOGS_DIR: crashedLogs, REIN_TEST_CMD: 'node --test', REIN_MODEL: 'stub-model', OPENAI_BASE_URL: stub.url },
      app2,
    );
    expect(died.code).toBe(137);
    const rebuilt = atifTrajectorySchema.parse(JSON.parse(readFileSync(join(crashedLogs, 'trajectory.json'), 'utf8')));
    expect(rebuilt.steps.filter((step) => step.source === 'agent')).toHaveLength(4);

    // Harbor stops an agent that runs out of time: SIGTERM to the run command reaches rein, which saves and writes its files.
    let calls = 0;
    const hanging = await startOpenAIStub((request) => (calls++ === 0 ? fixesAdd(request) : { hang: true }));
    try {
      const stopped = join(container, 'logs', 'stopped');
      const child = spawn(join(container, 'opt', 'rein', 'bin', 'rein-harbor-run'), ['Fix add() again.'], {
        env: {
          ...env,
          PATH: `${join(container, 'opt', 'rein', 'bin')}:${env.PATH}`,
          REIN_LOGS_DIR: stopped,
          REIN_MODEL: 'stub-model',
          OPENAI_BASE_URL: hanging.url,
        },
        cwd: app,
        stdio: 'ignore',
      });
      const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
      const eventsFile = join(stopped, 'rein-events.jsonl');
      while (!(existsSync(eventsFile) && readFileSync(eventsFile, 'utf8').includes('"kind":"tool"'))) await new Promise((resolve) => setTimeout(resolve, 20));
      child.kill('SIGTERM');
      expect(await closed).toBe(143);
      expect(JSON.parse(readFileSync(join(stopped, 'rein-summary.json'), 'utf8'))).toMatchObject({ status: 'terminated', exitCode: 143 });
      const partial = atifTrajectorySchema.parse(JSON.parse(readFileSync(join(stopped, 'trajectory.json'), 'utf8')));
      expect(partial.steps.filter((step) => step.source === 'agent')).toHaveLength(1);
    } finally {
      await hanging.close();
    }
    // The unpacked bundle is many thousand files: removed here, within this test's time, not in the 60 s cleanup hook.
    rmSync(container, { recursive: true, force: true });
  }, 600_000);

  it.each([
    ['tests', "Harbor's installed-agent interface (the real one when Harbor is installed)"],
    ['tests_legacy', 'the template interface of Harbor before 2026-03-24'],
  ])("the Python agent class's own tests pass (python3 -m pytest eval/harbor/%s: %s)", (folder) => {
    const result = spawnSync('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', join(harbor, folder)], {
      encoding: 'utf8',
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
    });
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/\d+ passed/);
  });
});
