import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OpenAIStub, startOpenAIStub } from '../../testing/index.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { makeTempDir, writeFiles } from '../helpers/workspace.js';

describe('the CLI when things go wrong', () => {
  let stub: OpenAIStub;
  beforeAll(async () => {
    stub = await startOpenAIStub(() => ({ toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a.txt' } }] }));
  });
  afterAll(async () => {
    await stub.close();
  });

  it('a guard from a rules file that throws: exit 4, a message naming the guard, a JSON line with --json', async () => {
    const ws = makeTempDir();
    writeFiles(ws, {
      'a.txt': 'a\n',
      'rein.config.mjs':
        "export const guards = { boom: () => { throw new Error('kaput'); } };\nexport default { phases: { plan: { exits: [{ guard: 'boom', to: 'build' }] } } };\n",
    });
    const env = cleanEnv({ OPENAI_BASE_URL: stub.url, XDG_STATE_HOME: makeTempDir('rein-state-') });
    expect((await runCli(['trust', ws], { env })).code).toBe(0);
    const result = await runCli(['run', ws, 'task', '--test-cmd', 'true', '--model', 'stub', '--json'], { env });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('rein: run crashed: guard "boom" threw: kaput');
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(JSON.parse(result.stdout)).toEqual({ status: 'error', exitCode: 4, error: 'guard "boom" threw: kaput' });
  });

  it('--json prints a JSON line when the run never starts, and an error names its command once', async () => {
    const ws = makeTempDir();
    writeFileSync(join(ws, 'rein.config.json'), '{"budgets": {"maxStep": 3}}');
    const badRules = await runCli(['run', ws, 'task', '--test-cmd', 'true', '--model', 'stub', '--json'], { env: cleanEnv({ OPENAI_BASE_URL: stub.url }) });
    expect(badRules.code).toBe(2);
    expect(JSON.parse(badRules.stdout)).toMatchObject({ status: 'error', exitCode: 2, error: expect.stringContaining('maxStep') });
    const missing = await runCli(['run', join(ws, 'nope'), 'task', '--test-cmd', 'true'], { env: cleanEnv({ OPENAI_BASE_URL: stub.url }) });
    expect(missing.code).toBe(2);
    expect(missing.stderr).not.toContain('rein: rein ');
  });

  it('rein viz takes a run directory, and refuses a file with no trace lines in it', async () => {
    const dir = makeTempDir();
    mkdirSync(join(dir, 'run'));
    writeFileSync(join(dir, 'run', 'trace.jsonl'), `${JSON.stringify({ i: 0, t: 0, kind: 'start', task: 'from the run dir' })}\n`);
    const fromDir = await runCli(['viz', join(dir, 'run'), '--out', join(dir, 'a.html')]);
    expect(fromDir.code, fromDir.stderr).toBe(0);
    expect(fromDir.stderr).toContain('wrote');
    writeFileSync(join(dir, 'junk.jsonl'), 'this is not a trace\nat all\n');
    const junk = await runCli(['viz', join(dir, 'junk.jsonl'), '--out', join(dir, 'b.html')]);
    expect(junk.code).toBe(2);
    expect(junk.stderr).toContain('holds no trace lines');
  });

  it('rein compare with one side of an eval names the other side to give', async () => {
    const dir = makeTempDir();
    const line = (config: string, task: string) =>
      JSON.stringify({
        task,
        config,
        repeat: 0,
        resolved: true,
        status: 'done',
        steps: 1,
        usage: { promptTokens: 1, completionTokens: 1, cachedTokens: 0, costUsd: 0 },
        wallMs: 1,
      });
    writeFileSync(join(dir, 'results.jsonl'), [line('default', 't1'), line('strict', 't1')].join('\n') + '\n');
    const result = await runCli(['compare', `${dir}#default`]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`is one side; name the other too: rein compare ${dir}#default ${dir}#strict`);
  });
});
