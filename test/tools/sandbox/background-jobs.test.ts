import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { jobTool } from '../../../tools/job.js';
import { backgroundedCommand, runTool } from '../../../tools/run.js';
import { openJobStore } from '../../../tools/sandbox/jobs/job-store.js';
import type { CommandPolicy, JobEffect, ToolContext } from '../../../tools/types.js';
import { commandLine, processesWithArgument, uniqueMarker } from '../../helpers/processes.js';
import { openRunSandbox, sandboxContext } from '../../helpers/run-sandbox.js';
import { waitUntil } from '../../helpers/wait.js';
import { makeContext, makeTempDir } from '../../helpers/workspace.js';

describe('backgroundedCommand', () => {
  it.each([
    ['npm run dev &', 'npm run dev'],
    ['nohup python -m http.server 8000 > server.log 2>&1 &', 'nohup python -m http.server 8000 > server.log 2>&1'],
    ['cd web && npm start  &  ', 'cd web && npm start'],
    ['sleep 1 & echo started', null],
    ['make &&', null],
    ['echo "a &"', null],
    ["echo 'a &", null],
    ['echo \\&', null],
    ['&', null],
    ['echo "a & b" &', 'echo "a & b"'],
    ['echo "it\'s" &', 'echo "it\'s"'],
    ['echo \\"a &', 'echo \\"a'],
    ['echo "a\\" &', null],
    ["echo 'a\\' &", "echo 'a\\'"],
  ])('%j → %j', (command, expected) => {
    expect(backgroundedCommand(command)).toBe(expected);
  });
});

describe.each(['none', 'bwrap'] as const)('background jobs (%s)', (sandboxKind) => {
  const setup = (policy: Partial<CommandPolicy> = {}) => {
    const root = makeTempDir();
    const full = { sandbox: sandboxKind, ...policy };
    const sandbox = openRunSandbox(root, full);
    const ctx: ToolContext = sandboxContext(root, sandbox, { policy: full });
    return {
      root,
      sandbox,
      run: (command: string, background?: boolean) => runTool.execute({ command, ...(background === undefined ? {} : { background }) }, ctx),
      job: (args: { id?: string; stop?: boolean; wait?: number }) => jobTool.execute({ stop: false, wait: 0, ...args }, ctx),
    };
  };

  it('a job outlives the call that started it; its output is read while it runs, new output only; it is stopped by id', async () => {
    const { run, job } = setup();
    const marker = uniqueMarker();
    const started = await run(`echo serving; sleep ${marker}`, true);
    expect(started.ok).toBe(true);
    expect(started.content).toMatch(/^job=1 running for [\d.]+s \(process group \d+\): echo serving; sleep [\d.]+\nlog: .*\/jobs\/1\.log \(8 bytes\)\n/);
    expect(started.content).toMatch(/--- new output \(8 bytes\) ---\nserving\n$/);
    expect(started.effect).toMatchObject({ kind: 'job', action: 'start', id: '1', state: 'running', exitCode: null, newBytes: 8, running: 1 });
    // Commands after it do not end it (the old design killed every process a command left behind).
    expect((await run('echo other command')).content).toBe('exit=0\nother command\n');
    expect(processesWithArgument(marker)).toHaveLength(1);
    const again = await job({ id: '1' });
    expect(again.content).toMatch(/--- no new output ---\n$/);
    expect(again.effect).toMatchObject({ kind: 'job', action: 'read', state: 'running', newBytes: 0 });
    const stopped = await job({ id: '1', stop: true });
    expect(stopped.content).toMatch(/^job=1 stopped \(stopped by the agent\) after [\d.]+s: /);
    expect(stopped.effect).toMatchObject({ kind: 'job', action: 'stop', state: 'stopped', running: 0 });
    expect(processesWithArgument(marker)).toEqual([]);
  });

  it('a command ending in & is a job; wait returns when it ends, with its exit code; each line of output is shown once', async () => {
    const { run, job } = setup();
    const started = await run('for i in 1 2 3; do echo tick $i; sleep 0.4; done; exit 4 &');
    expect(started.effect).toMatchObject({ kind: 'job', action: 'start', id: '1', command: 'for i in 1 2 3; do echo tick $i; sleep 0.4; done; exit 4' });
    const ended = await job({ id: '1', wait: 30 });
    expect(ended.content).toMatch(/^job=1 exited with 4 after [\d.]+s: /);
    expect(ended.effect).toMatchObject({ state: 'exited', exitCode: 4, running: 0 });
    const seen = `${started.content}${ended.content}`;
    expect(['tick 1', 'tick 2', 'tick 3'].map((line) => seen.split(`${line}\n`).length - 1)).toEqual([1, 1, 1]);
  });

  it('a nohup … & server writing its own log keeps running, reachable from later commands in the same sandbox', async () => {
    const { run, job } = setup();
    const marker = uniqueMarker();
    const started = await run(`nohup bash -c 'echo up > server.log; exec sleep ${marker}' > nohup.out 2>&1 &`);
    expect(started.effect).toMatchObject({ kind: 'job', state: 'running' });
    await waitUntil(() => processesWithArgument(marker).some((pid) => commandLine(pid).startsWith('sleep\0')), 'the server to start');
    expect((await run('cat server.log')).content).toBe('exit=0\nup\n');
    expect((await job({})).content).toMatch(/^job=1 running for [\d.]+s \(process group \d+\): nohup bash/);
  });

  it('stopping a job ends what it started too, in its group or out of it', async () => {
    const { run, job } = setup();
    const marker = uniqueMarker();
    await run(`sleep ${marker} & setsid sleep ${marker} & sleep ${marker}`, true);
    await waitUntil(() => processesWithArgument(marker).filter((pid) => commandLine(pid).startsWith('sleep\0')).length === 3, "the job's processes");
    await job({ id: '1', stop: true });
    await waitUntil(() => processesWithArgument(marker).length === 0, "the job's processes to go").catch(() => undefined);
    expect(processesWithArgument(marker)).toEqual([]);
  });

  it('every job is stopped when the run ends, and says so', async () => {
    const { sandbox, run } = setup();
    const marker = uniqueMarker();
    await run(`trap '' TERM; sleep ${marker}`, true);
    await run(`sleep ${marker}`, true);
    expect(processesWithArgument(marker)).toHaveLength(2);
    await sandbox.dispose();
    expect(processesWithArgument(marker)).toEqual([]);
    expect(sandbox.jobs().map((view) => [view.state, view.cause])).toEqual([
      ['stopped', 'the run ended'],
      ['stopped', 'the run ended'],
    ]);
  });

  it('lists jobs, and says plainly when an id is unknown', async () => {
    const { run, job } = setup();
    expect((await job({})).content).toMatch(/^No background jobs in this run/);
    await run('exit 0', true);
    expect((await job({ id: '7' })).content).toBe('Tool error: no job "7" in this run (jobs: 1).');
  });
});

describe('background jobs without a run sandbox', () => {
  it('are refused with a reason, and the job tool says why', async () => {
    const root = makeTempDir();
    const ctx = makeContext(root);
    const started = await runTool.execute({ command: 'sleep 1 &' }, ctx);
    expect(started).toMatchObject({ ok: false, effect: { kind: 'job', id: null, state: 'lost' } satisfies Partial<JobEffect> });
    expect(started.content).toMatch(/^Background job not started: background jobs need the run's sandbox/);
    expect((await jobTool.execute({ stop: false, wait: 0 }, ctx)).ok).toBe(false);
  });
});

describe('openJobStore', () => {
  it('reports, once, the jobs that were running when an earlier process of the run ended', () => {
    const dir = makeTempDir();
    const first = openJobStore(dir);
    const running = first.create('npm run dev');
    const stopped = first.create('make watch');
    const done = first.create('make');
    first.end(stopped.id, 'stopped', null, 'stopped by the agent');
    first.end(done.id, 'exited', 0, null);
    const interrupted = first.create('python -m http.server');
    first.end(interrupted.id, 'stopped', null, 'the run ended');
    // A kill may cut the last line.
    fs.appendFileSync(`${dir}/jobs.jsonl`, '{"id":"9","comm');
    const second = openJobStore(dir);
    expect(second.takeLost().map((job) => [job.id, job.command, job.state])).toEqual([
      [running.id, 'npm run dev', 'lost'],
      [interrupted.id, 'python -m http.server', 'lost'],
    ]);
    expect(openJobStore(dir).takeLost()).toEqual([]);
    expect(openJobStore(dir).create('next').id).toBe('5');
  });

  it('cuts a log that grows past the cap, and reads only what is new, head and tail', () => {
    const dir = makeTempDir();
    const store = openJobStore(dir);
    const job = store.create('yes');
    fs.appendFileSync(job.log, `${'a'.repeat(5000)}${'z'.repeat(5000)}`);
    const first = store.readNew(job.id, 1000);
    expect(first.newBytes).toBe(10_000);
    expect(first.text).toMatch(/^a{460}\n\.\.\.\[9080 bytes omitted\]\.\.\.\nz{460}$/);
    expect(store.readNew(job.id, 1000)).toEqual({ text: '', newBytes: 0, size: 10_000 });
    fs.truncateSync(job.log, 64 * 1024 * 1024 + 1);
    store.capLogs();
    expect(fs.readFileSync(job.log, 'utf8')).toBe('[rein: this log passed 64 MiB and was cut; older output is gone]\n');
    expect(store.readNew(job.id, 1000).text).toMatch(/^\[rein: this log passed 64 MiB/);
  });
});
