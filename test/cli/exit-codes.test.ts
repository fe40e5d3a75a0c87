import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type OpenAIStub, startOpenAIStub } from '../../testing/index.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

function repo(): string {
  const dir = makeTempDir('rein-exit-codes-');
  writeFileSync(join(dir, 'a.txt'), 'hello\n');
  return dir;
}

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const lastLine = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!);

describe('exit codes say who ended the run', () => {
  let stub: OpenAIStub | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  it('6 when an exit rule ends the run as failed, with endedBy "rule" in --json, the summary and the trace', async () => {
    stub = await startOpenAIStub(() => ({ toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] }));
    const out = makeTempDir('rein-exit-out-');
    const rules = join(out, 'rules.json');
    writeFileSync(
      rules,
      JSON.stringify({ phases: { plan: { exitsPrepend: [{ guard: 'phaseSteps', min: 2, to: 'failed', reason: 'Plan took too long.' }] } } }),
    );
    const result = await runCli(
      ['run', repo(), 'Read a.txt', '--test-cmd', 'true', '--model', 'stub', '--config', rules, '--json', '--summary', join(out, 's.json')],
      { env: cleanEnv({ OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: 'sk-test' }) },
    );
    expect(result.code, result.stderr).toBe(6);
    expect(lastLine(result.stdout)).toMatchObject({ status: 'failed', endedBy: 'rule', exitCode: 6, reason: 'Plan took too long.' });
    expect(readJson(join(out, 's.json'))).toMatchObject({ status: 'failed', endedBy: 'rule', exitCode: 6 });
    const end = readFileSync(lastLine(result.stdout).trace, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .find((line) => line.kind === 'end');
    expect(end).toMatchObject({ status: 'failed', by: 'rule' });
  }, 60_000);

  it('3 when the endpoint fails mid-run: the same end status, endedBy "endpoint"', async () => {
    stub = await startOpenAIStub((_request, index) =>
      index === 0 ? { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] } : { status: 400, body: '{"error":{"message":"bad request"}}' },
    );
    const result = await runCli(['run', repo(), 'Read a.txt', '--test-cmd', 'true', '--model', 'stub', '--json'], {
      env: cleanEnv({ OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: 'sk-test' }),
    });
    expect(result.code, result.stderr).toBe(3);
    expect(lastLine(result.stdout)).toMatchObject({ status: 'failed', endedBy: 'endpoint', exitCode: 3 });
  }, 60_000);

  it('rein --help lists every code, 6 among them', async () => {
    const help = await runCli(['--help']);
    expect(help.stdout).toMatch(/6 a rule ended the run as failed/);
    expect(help.stdout).toMatch(/3 model endpoint failed/);
  });
});
