import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type OpenAIStub, startOpenAIStub } from '../../testing/index.js';
import { cleanEnv, reinBin, runCli } from '../helpers/cli.js';
import { waitUntil } from '../helpers/wait.js';
import { makeTempDir } from '../helpers/workspace.js';

function repo(): string {
  const dir = makeTempDir('rein-lines-');
  writeFileSync(join(dir, 'a.js'), 'export const a = 1;\n');
  return dir;
}

describe('what rein says when a run starts and when it resumes', () => {
  let stub: OpenAIStub | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  it('the start lines name every check the gate wants, with what counts as a pass', async () => {
    stub = await startOpenAIStub(() => ({ toolCalls: [{ name: 'read_file', arguments: { path: 'a.js' } }] }));
    const rules = join(makeTempDir('rein-lines-rules-'), 'rules.json');
    writeFileSync(
      rules,
      JSON.stringify({
        budgets: { maxSteps: 1 },
        verification: { runs: 2, checks: [{ name: 'lint', command: 'npm run lint', passPattern: '^0 problems' }] },
      }),
    );
    const result = await runCli(['run', repo(), 'Read a.js', '--test-cmd', 'node --test', '--model', 'stub', '--config', rules], {
      env: cleanEnv({ OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: 'sk-test' }),
    });
    expect(result.stderr).toContain('rein: verification command: node --test (passes with exit 0, 2 times after the last edit)\n');
    expect(result.stderr).toContain('rein: verification check lint: npm run lint (passes with exit 0 and output matching /^0 problems/)\n');
  }, 60_000);

  it('a run killed while the model answers its first turn of build resumes saying build, not the plan step it goes on from; not while it still runs', async () => {
    let hang = true;
    stub = await startOpenAIStub(async (_request, index) => {
      if (index === 0) return { toolCalls: [{ name: 'edit_file', arguments: { path: 'a.js', old: '= 1', new: '= 2' } }] };
      while (hang) await new Promise((resolve) => setTimeout(resolve, 50));
      return {
        toolCalls: [
          { name: 'run', arguments: { command: 'true' } },
          { name: 'finish', arguments: { summary: 'a is 2' } },
        ],
      };
    });
    const workspace = repo();
    const env = cleanEnv({ OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: 'sk-test' });
    const child = spawn(process.execPath, [reinBin, 'run', workspace, 'Make a 2', '--test-cmd', 'true', '--model', 'stub'], { env });
    const closed = new Promise((resolve) => child.on('close', resolve));
    const runs = join(workspace, '.rein', 'runs');
    // Killed once the trace shows the run in build, waiting for the model's answer there.
    const tracePath = () => join(runs, readdirSync(runs)[0]!, 'trace.jsonl');
    await waitUntil(
      () => {
        try {
          return readFileSync(tracePath(), 'utf8').includes('"to":"build.think"');
        } catch {
          return false;
        }
      },
      'the run to wait for the model in build',
      30_000,
    );
    // While its process lives, the run is not resumed beside it: two processes would run its calls twice.
    const traceBefore = readFileSync(tracePath(), 'utf8');
    const early = await runCli(['resume', join(runs, readdirSync(runs)[0]!)], { env });
    expect(early.code).toBe(2);
    expect(early.stderr).toContain(`is still running (pid ${child.pid}); stop it first (Ctrl+C where it runs, or kill ${child.pid}), then resume it`);
    expect(readFileSync(tracePath(), 'utf8')).toBe(traceBefore);
    child.kill('SIGKILL');
    await closed;
    hang = false;
    const resumed = await runCli(['resume', join(runs, readdirSync(runs)[0]!)], { env });
    expect(resumed.stderr).toContain(
      '[rein] resumed in build: it stopped in build.think, and goes on from the step saved at plan.act, whose tool calls are not run again',
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    const resume = readFileSync(tracePath(), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .find((line) => line.kind === 'resume');
    expect(resume).toMatchObject({ fromState: 'plan.act', stoppedIn: 'build.think' });
  }, 90_000);
});
