import { spawn } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readSnapshotIndex } from '../../run/record/snapshot-index.js';
import { exportRunAsAtif } from '../../telemetry/atif/export-run.js';
import { type OpenAIStub, type StubAnswer, type StubRequest, startOpenAIStub } from '../../testing/index.js';
import { makeTempDir } from '../../testing/temp-dir.js';
import { cleanEnv, reinBin, runCli } from '../helpers/cli.js';
import { waitUntil } from '../helpers/wait.js';

const STEPS = [
  { name: 'run', arguments: { command: 'printf one > f && rm a && chmod 600 keep' } },
  { name: 'run', arguments: { command: 'printf two > f && ln -s f link && mkdir -p d && printf x > d/x' } },
  { name: 'run', arguments: { command: 'true' } },
];

/** The original run's model: three commands, then finish. A fork's model (another name): its own two commands, then finish. */
function answer(request: StubRequest): StubAnswer {
  const done = request.messages.filter((message) => message.role === 'tool').length;
  if (request.model !== 'origin') {
    // Forked at step 1: one tool result is the origin's.
    const own = done - 1;
    const forkCall = [
      { name: 'run', arguments: { command: 'printf fork > f' } },
      { name: 'run', arguments: { command: 'true' } },
    ][own];
    return { toolCalls: [{ id: `f${done}`, ...(forkCall ?? { name: 'finish', arguments: { summary: 'forked' } }) }] };
  }
  const call = STEPS[done];
  if (!call) return { toolCalls: [{ id: `c${done}`, name: 'finish', arguments: { summary: 'done' } }] };
  return { toolCalls: [{ id: `c${done}`, ...call }] };
}

const traceOf = (runDir: string) =>
  readFileSync(join(runDir, 'trace.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('rein rewind and rein fork on a real run', () => {
  let stub: OpenAIStub | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  async function originalRun() {
    stub = await startOpenAIStub(answer);
    const repo = makeTempDir('rein-e2e-rewind-', { until: 'exit' });
    writeFileSync(join(repo, 'a'), 'a\n');
    writeFileSync(join(repo, 'keep'), 'keep\n');
    const runDir = join(repo, '.rein', 'runs', 'origin');
    const env = cleanEnv({ OPENAI_BASE_URL: stub.url, XDG_STATE_HOME: makeTempDir('rein-e2e-state-', { until: 'exit' }) });
    const result = await runCli(['run', repo, 'task', '--test-cmd', 'true', '--model', 'origin', '--run-dir', runDir], { env });
    expect(result.code, result.stderr).toBe(0);
    return { repo, runDir, env };
  }

  it('rewind shows the diff, refuses outside changes unless --force, and restores files, modes and links; --out leaves the run alone', async () => {
    const { repo, runDir, env } = await originalRun();
    expect(readlinkSync(join(repo, 'link'))).toBe('f');
    const dry = await runCli(['rewind', runDir, '--to', '1', '--dry-run'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('0 added, 1 modified, 3 deleted');
    expect(dry.stdout).toMatch(/- link\n/);
    expect(dry.stdout).toContain('not undone: true');
    expect(readFileSync(join(repo, 'f'), 'utf8')).toBe('two');

    writeFileSync(join(repo, 'mine.txt'), 'my own edit\n');
    const refused = await runCli(['rewind', runDir, '--to', '1'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('changed since the run');
    expect(refused.stdout).toContain('+ mine.txt');
    expect(readFileSync(join(repo, 'f'), 'utf8')).toBe('two');

    const forced = await runCli(['rewind', runDir, '--to', '1', '--force'], { env });
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(repo, 'f'), 'utf8')).toBe('one');
    expect(existsSync(join(repo, 'link')) || existsSync(join(repo, 'mine.txt')) || existsSync(join(repo, 'd'))).toBe(false);
    expect(lstatSync(join(repo, 'keep')).mode & 0o777).toBe(0o600);
    const state = JSON.parse(readFileSync(join(runDir, 'state.json'), 'utf8')) as { snapshot: { context: { step: number } } };
    expect(state.snapshot.context.step).toBe(1);

    // Forward again, to the run's end: the rewind left nothing behind that counts as an outside change.
    const again = await runCli(['rewind', runDir, '--to', '2'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(join(repo, 'd', 'x'), 'utf8')).toBe('x');

    const out = join(makeTempDir('rein-e2e-out-', { until: 'exit' }), 'step0');
    const materialised = await runCli(['rewind', runDir, '--to', '0', '--out', out], { env });
    expect(materialised.code, materialised.stderr).toBe(0);
    expect(readFileSync(join(out, 'a'), 'utf8')).toBe('a\n');
    expect(lstatSync(join(out, 'keep')).mode & 0o777).toBe(0o644);
    expect(readFileSync(join(repo, 'f'), 'utf8')).toBe('two');

    const missing = await runCli(['rewind', runDir, '--to', '99'], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no snapshot of step 99; the run kept steps 0 to 4');
  }, 180_000);

  it('fork branches at a step with another model: the shared history, a budget counted from that step, a link to the origin', async () => {
    const { repo, runDir, env } = await originalRun();
    const originSteps = (traceOf(runDir).find((line) => line.kind === 'end') as { steps: number }).steps;
    const forkOut = join(makeTempDir('rein-e2e-fork-', { until: 'exit' }), 'ws');
    const forked = await runCli(['fork', runDir, '--at', '1', '--model', 'other', '--out', forkOut], { env });
    expect(forked.code, forked.stderr).toBe(0);
    expect(forked.stderr).toContain(`branches from ${runDir} at step 1`);
    const forkRequest = stub!.requests.find((request) => request.model === 'other')!;
    // The fork's model is sent the origin's conversation up to step 1, then goes on with its own.
    const originRequest = stub!.requests.filter((request) => request.model === 'origin')[1]!;
    expect(forkRequest.messages).toEqual(originRequest.messages);
    expect(readFileSync(join(forkOut, 'f'), 'utf8')).toBe('fork');
    expect(readFileSync(join(repo, 'f'), 'utf8')).toBe('two');
    const forkDir = /^rein fork: (\S+) branches/m.exec(forked.stderr)![1]!;
    expect(JSON.parse(readFileSync(join(forkDir, 'run.json'), 'utf8'))).toMatchObject({ model: 'other', forkOf: { runDir, step: 1 }, workspace: forkOut });
    const trace = traceOf(forkDir);
    expect(trace[0]).toMatchObject({ kind: 'start', model: 'origin' });
    expect(trace.find((line) => line.kind === 'resume')).toMatchObject({ forkOf: { runDir, step: 1 } });
    expect(originSteps).toBe(4);
    // The fork's steps are counted on from the origin's step 1: its three steps end it at step 4.
    expect(trace.find((line) => line.kind === 'end')).toMatchObject({ status: 'done', steps: 4 });

    expect(exportRunAsAtif(forkDir).extra?.rein).toMatchObject({ fork_of: { run_dir: runDir, step: 1 } });

    const compared = await runCli(['compare', runDir, forkDir, '--json'], { env });
    expect(compared.code, compared.stderr).toBe(0);
    const rows = JSON.parse(compared.stdout) as Array<Record<string, unknown>>;
    expect(rows.map((row) => [row.role, row.model, row.status, row.steps, (row.own as { steps: number }).steps, row.changed])).toEqual([
      ['origin (from step 1)', 'origin', 'done', 4, 3, '+3 ~1 -0'],
      ['fork at step 1', 'other', 'done', 4, 3, '+0 ~1 -0'],
    ]);
    // Rewinding the origin afterwards changes what its workspace is now, not what the run did after the fork point.
    const rewound = await runCli(['rewind', runDir, '--to', '1'], { env });
    expect(rewound.code, rewound.stderr).toBe(0);
    const again = JSON.parse((await runCli(['compare', runDir, forkDir, '--json'], { env })).stdout) as Array<Record<string, unknown>>;
    expect(again.map((row) => [row.steps, row.changed])).toEqual([
      [4, '+3 ~1 -0'],
      [4, '+0 ~1 -0'],
    ]);
    const unrelated = await runCli(['compare', forkDir, runDir], { env });
    expect(unrelated.code).toBe(2);
    expect(unrelated.stderr).toContain('is not a fork of');
    void forked.code;
  }, 180_000);

  it('a live run is not rewound; after kill -9 in the middle of a step, rewind names the changes of the cut step, and with --force restores an earlier step', async () => {
    stub = await startOpenAIStub((request): StubAnswer => {
      const done = request.messages.filter((message) => message.role === 'tool').length;
      if (done === 0) return { toolCalls: [{ id: 'c0', name: 'run', arguments: { command: 'printf one > f' } }] };
      return { toolCalls: [{ id: `c${done}`, name: 'run', arguments: { command: 'printf cut > f && rm keep && sleep 60' } }] };
    });
    const repo = makeTempDir('rein-e2e-rewind-kill-', { until: 'exit' });
    writeFileSync(join(repo, 'keep'), 'keep\n');
    const runDir = join(repo, '.rein', 'runs', 'killed');
    const env = cleanEnv({ OPENAI_BASE_URL: stub.url, XDG_STATE_HOME: makeTempDir('rein-e2e-state-', { until: 'exit' }) });
    const cli = spawn(process.execPath, [reinBin, 'run', repo, 'task', '--test-cmd', 'true', '--model', 'origin', '--run-dir', runDir], {
      env,
      stdio: 'ignore',
    });
    await waitUntil(() => existsSync(join(repo, 'f')) && readFileSync(join(repo, 'f'), 'utf8') === 'cut', 'the second step to run', 60_000);
    const live = await runCli(['rewind', runDir, '--to', '1', '--force'], { env });
    expect(live.code).toBe(2);
    expect(live.stderr).toContain('the run is still going');
    cli.kill('SIGKILL');
    await new Promise((resolve) => cli.once('exit', resolve));
    expect(readSnapshotIndex(runDir).map((line) => line.step)).toEqual([0, 1]);
    const refused = await runCli(['rewind', runDir, '--to', '1'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stdout).toMatch(/~ f\n/);
    expect(refused.stdout).toMatch(/- keep\n/);
    expect(refused.stdout).toContain('not undone: printf cut > f && rm keep && sleep 60');
    const forced = await runCli(['rewind', runDir, '--to', '1', '--force'], { env });
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(repo, 'f'), 'utf8')).toBe('one');
    expect(readFileSync(join(repo, 'keep'), 'utf8')).toBe('keep\n');
  }, 180_000);
});
