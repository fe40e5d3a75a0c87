import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, reinBin, repoRoot, runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

const scratch = makeTempDir('rein-no-temp-', { until: 'exit' });
let count = 0;
/** A fresh TMPDIR and state folder for one run, so what it leaves behind is all that is in them. */
function isolated(): { tmp: string; state: string; env: NodeJS.ProcessEnv } {
  const tmp = join(scratch, `tmp-${++count}`);
  const state = join(scratch, `state-${count}`);
  mkdirSync(tmp);
  mkdirSync(state);
  return { tmp, state, env: cleanEnv({ TMPDIR: tmp, XDG_STATE_HOME: state }) };
}

describe('the demo and runScripted leave no temp folders behind', () => {
  it('rein demo removes its copy of the repo when the run ends; the trace it printed stays, in the state folder', async () => {
    const { tmp, state, env } = isolated();
    const result = await runCli(['demo', '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(readdirSync(tmp)).toEqual([]);
    const { trace } = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { trace: string };
    expect(trace.startsWith(join(state, 'rein', 'demo-runs'))).toBe(true);
    expect(readFileSync(trace, 'utf8').split('\n').filter(Boolean).length).toBeGreaterThan(50);
    expect(result.stderr).toMatch(/copied the demo repo to .*rein-demo-\w+ \(removed when the run ends/);
  }, 120_000);

  it('keeps the ten newest demo runs in the state folder, removing older ones', async () => {
    const { state, env } = isolated();
    const runs = join(state, 'rein', 'demo-runs');
    const old = Array.from({ length: 12 }, (_, index) => `20200101T0000${String(index).padStart(2, '0')}Z-old${index}`);
    for (const name of old) mkdirSync(join(runs, name), { recursive: true });
    const result = await runCli(['demo', '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    const kept = readdirSync(runs).sort();
    expect(kept).toHaveLength(10);
    expect(kept.slice(0, 9)).toEqual(old.slice(3));
    expect(kept[9]!.startsWith('2026') || kept[9]! > old.at(-1)!).toBe(true);
  }, 120_000);

  it('an interrupted demo keeps its copy for rein resume, and says so', async () => {
    const { tmp, env } = isolated();
    const child = spawn(process.execPath, [reinBin, 'demo', '--viz', '--viz-exit', '--viz-port', '0'], { env });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // The paced demo model answers every 450 ms: stop it after its first step.
    const deadline = Date.now() + 60_000;
    while (!stderr.includes('[rein] step 1')) {
      if (Date.now() > deadline) throw new Error(`the demo never took a step:\n${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill('SIGTERM');
    expect(await exited).toBe(143);
    const [copy] = readdirSync(tmp);
    expect(copy).toMatch(/^rein-demo-/);
    expect(stderr).toContain(`kept the copy of the demo repo at ${join(tmp, copy!)} for rein resume`);
    expect(existsSync(join(tmp, copy!, 'stats.js'))).toBe(true);
  }, 120_000);

  it("runScripted's temp workspace and run folder go when its process exits", async () => {
    const { tmp, env } = isolated();
    const script = `
      import { runScripted, reply, call } from ${JSON.stringify(join(repoRoot, 'dist', 'testing', 'index.js'))};
      const run = await runScripted({ files: { 'a.js': 'x' }, testCmd: 'true', script: [reply(call('finish', { summary: 's' }))] });
      console.log(JSON.stringify([run.workspace, run.runDir]));
    `;
    const { code, stdout } = await node(script, env);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).every((path: string) => path.startsWith(tmp))).toBe(true);
    expect(readdirSync(tmp)).toEqual([]);
  }, 120_000);

  it("the test kit's temp folders go when a test runner ends its worker with SIGTERM (which skips 'exit')", async () => {
    const { tmp, env } = isolated();
    const script = `
      import { makeTempDir } from ${JSON.stringify(join(repoRoot, 'dist', 'testing', 'index.js'))};
      makeTempDir('rein-test-ws-');
      makeTempDir('rein-fixture-', { until: 'exit' });
      console.log('made');
      setInterval(() => undefined, 1000);
    `;
    const { signal } = await node(script, env, (child) => child.kill('SIGTERM'));
    expect(signal).toBe('SIGTERM');
    expect(readdirSync(tmp)).toEqual([]);
  }, 60_000);
});

/** Runs an ES module script in a child node; `whenPrinted` is called once it has printed its first line. */
function node(
  script: string,
  env: NodeJS.ProcessEnv,
  whenPrinted?: (child: ReturnType<typeof spawn>) => void,
): Promise<{ code: number | null; signal: string | null; stdout: string }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env });
  let stdout = '';
  child.stdout.on('data', (chunk) => {
    const first = stdout === '';
    stdout += chunk;
    if (first) whenPrinted?.(child);
  });
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout: stdout.trim() })));
}
