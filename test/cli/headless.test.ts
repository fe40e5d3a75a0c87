import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { atifTrajectorySchema } from '../../telemetry/atif/atif-schema.js';
import { type OpenAIStub, startOpenAIStub } from '../../testing/index.js';
import { cleanEnv, reinBin, runCli } from '../helpers/cli.js';
import { fixesAdd } from '../helpers/fixes-add.js';
import { makeTempDir } from '../helpers/workspace.js';

const SECRET = 'sk-test-0123456789abcdefHEADLESS';

function repo(): string {
  const dir = makeTempDir('rein-headless-');
  writeFileSync(join(dir, 'add.js'), 'export function add(a, b) {\n  return a - b;\n}\n');
  writeFileSync(
    join(dir, 'add.test.js'),
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from './add.js';\ntest('adds', () => assert.equal(add(2, 3), 5));\n",
  );
  return dir;
}

/** What an outside tool does with rein's stdout: every line must be one JSON object. */
function events(stdout: string): Array<{ i: number; t: number; kind: string; [field: string]: unknown }> {
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

describe('the headless contract, read as an outside tool reads it', () => {
  let stub: OpenAIStub | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  it('--json-events streams the trace on stdout line for line; --summary and --atif are written; exit 0', async () => {
    stub = await startOpenAIStub(fixesAdd);
    const out = makeTempDir('rein-headless-out-');
    const runDir = join(out, 'run');
    const result = await runCli(
      [
        'run',
        repo(),
        'Fix add',
        '--test-cmd',
        'node --test',
        '--model',
        'stub-model',
        '--run-dir',
        runDir,
        '--json-events',
        '--summary',
        join(out, 's.json'),
        '--atif',
        join(out, 'atif', 'trajectory.json'),
      ],
      { env: cleanEnv({ OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: SECRET }) },
    );
    expect(result.code, result.stderr).toBe(0);
    const stream = events(result.stdout);
    expect(stream.map((event) => event.i)).toEqual(stream.map((_, index) => index));
    expect(stream[0]!.kind).toBe('start');
    expect(stream.at(-1)).toMatchObject({ kind: 'end', status: 'done' });
    expect(new Set(stream.map((event) => event.kind))).toEqual(new Set(['start', 'transition', 'model', 'tool', 'progress', 'finish', 'end']));
    // The stream is the trace file, byte for byte, secrets redacted in both.
    expect(result.stdout).toBe(readFileSync(join(runDir, 'trace.jsonl'), 'utf8'));
    expect(result.stdout).not.toContain(SECRET);
    const summary = readJson(join(out, 's.json'));
    expect(summary).toMatchObject({ status: 'done', exitCode: 0, steps: 4, summary: 'add() adds.', runDir, atif: join(out, 'atif', 'trajectory.json') });
    const trajectory = atifTrajectorySchema.parse(readJson(summary.atif));
    expect(trajectory.steps.filter((step) => step.source === 'agent')).toHaveLength(4);
  }, 120_000);

  it('SIGTERM stops the run cleanly: exit 143, the summary says terminated, the ATIF holds the steps so far', async () => {
    let calls = 0;
    stub = await startOpenAIStub((request) => (calls++ === 0 ? fixesAdd(request) : { hang: true }));
    const out = makeTempDir('rein-headless-term-');
    const child = spawn(
      process.execPath,
      [
        reinBin,
        'run',
        repo(),
        'Fix add',
        '--test-cmd',
        'node --test',
        '--model',
        'stub-model',
        '--json-events',
        '--summary',
        join(out, 's.json'),
        '--atif',
        join(out, 't.json'),
      ],
      { env: cleanEnv({ OPENAI_BASE_URL: stub.url }), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
    });
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    while (!stdout.includes('"kind":"tool"')) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGTERM');
    expect(await closed).toBe(143);
    expect(events(stdout).some((event) => event.kind === 'interrupted')).toBe(true);
    expect(readJson(join(out, 's.json'))).toMatchObject({ status: 'terminated', exitCode: 143 });
    const trajectory = atifTrajectorySchema.parse(readJson(join(out, 't.json')));
    expect(trajectory.steps.filter((step) => step.source === 'agent')).toHaveLength(1);
    expect((trajectory.extra!.rein as { outcome: unknown }).outcome).toEqual({ status: 'interrupted' });
  }, 120_000);

  it('distinct exit codes with a summary each: 2 bad usage, 3 endpoint down', async () => {
    const out = makeTempDir('rein-headless-codes-');
    const usage = await runCli(['run', repo(), 'Fix add', '--model', 'm', '--summary', join(out, 'u.json')], {
      env: cleanEnv({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }),
    });
    expect(usage.code).toBe(2);
    expect(readJson(join(out, 'u.json'))).toMatchObject({ status: 'usage', exitCode: 2, error: expect.stringMatching(/verification command/) });
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const down = await runCli(['run', repo(), 'Fix add', '--test-cmd', 'true', '--model', 'm', '--summary', join(out, 'e.json')], {
      env: cleanEnv({ OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` }),
    });
    expect(down.code).toBe(3);
    expect(readJson(join(out, 'e.json'))).toMatchObject({ status: 'endpoint', exitCode: 3 });
  }, 120_000);

  it('a run killed with SIGKILL and resumed exports one ATIF trajectory that validates and records the resume', async () => {
    stub = await startOpenAIStub(async (request) => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      return fixesAdd(request);
    });
    const out = makeTempDir('rein-headless-kill-');
    const runDir = join(out, 'run');
    const child = spawn(process.execPath, [reinBin, 'run', repo(), 'Fix add', '--test-cmd', 'node --test', '--model', 'stub', '--run-dir', runDir], {
      env: cleanEnv({ OPENAI_BASE_URL: stub.url }),
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    const closed = new Promise((resolve) => child.on('close', resolve));
    const trace = join(runDir, 'trace.jsonl');
    while (!(existsSync(trace) && (readFileSync(trace, 'utf8').match(/"kind":"model"/g) ?? []).length >= 2))
      await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGKILL');
    await closed;
    const resumed = await runCli(['resume', runDir, '--atif', join(out, 't.json'), '--summary', join(out, 's.json')], {
      env: cleanEnv({ OPENAI_BASE_URL: stub.url }),
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(readJson(join(out, 's.json'))).toMatchObject({ status: 'done', exitCode: 0 });
    const trajectory = atifTrajectorySchema.parse(readJson(join(out, 't.json')));
    const rein = trajectory.extra!.rein as { resumes: unknown[]; outcome: { status: string } };
    expect(rein.resumes).toHaveLength(1);
    expect(rein.outcome.status).toBe('done');
    const agent = trajectory.steps.filter((step) => step.source === 'agent');
    expect(agent.at(-1)!.tool_calls![0]!.function_name).toBe('finish');
    // Every call in the exported conversation has its result: the record was cut back to the saved step, not left half.
    for (const step of agent.slice(0, -1)) expect(step.observation?.results.length).toBe(step.tool_calls?.length);
    // The same export from the CLI gives the same document.
    const cli = await runCli(['trace', 'export', runDir, '--format', 'atif']);
    expect(JSON.parse(cli.stdout)).toEqual(trajectory);
  }, 120_000);

  it('rein trace export --format atif: a missing run and OTel-only flags are usage errors named once', async () => {
    const missing = await runCli(['trace', 'export', join(makeTempDir('rein-atif-none-'), 'nope'), '--format', 'atif']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^rein trace export: not found: /);
    const mixed = await runCli(['trace', 'export', makeTempDir('rein-atif-mixed-'), '--format', 'atif', '--endpoint', 'http://127.0.0.1:9']);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toBe('rein trace export: --endpoint goes with --format otel (ATIF is written to stdout or --out)\n');
  });
});
