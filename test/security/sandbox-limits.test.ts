import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runTool } from '../../tools/run.js';
import { runColdCommand } from '../../tools/sandbox/launch/cold-command.js';
import { sandboxLimits } from '../../tools/sandbox/limits/sandbox-limits.js';
import type { RunSandbox } from '../../tools/sandbox/run-sandbox.js';
import { openRunSandbox, sandboxContext } from '../helpers/run-sandbox.js';
import { makeContext, makeTempDir } from '../helpers/workspace.js';

const signal = new AbortController().signal;
const run = (sandbox: RunSandbox, command: string, timeoutMs = 30_000) => sandbox.runCommand(command, { timeoutMs, signal, outputCap: 4000 });
const hostProcesses = () => fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).length;

/** The most host processes seen while `work` runs, sampled every 20 ms. */
async function peakHostProcesses(work: Promise<unknown>): Promise<number> {
  let peak = hostProcesses();
  const sampler = setInterval(() => {
    peak = Math.max(peak, hostProcesses());
  }, 20);
  try {
    await work;
  } finally {
    clearInterval(sampler);
  }
  return peak;
}

// Issue 25, item 11 and "bounds everywhere": nothing limited the memory or the number of processes of what the
// sandbox ran; a fork bomb written to dodge the deny list was held only by the machine's own limits (here, as root,
// by none but the 32768 pids of the whole machine).
describe('the sandbox limits (bubblewrap)', () => {
  it('stops a fork bomb at the process limit; the harness, the host and the next command are unharmed and the model is told', async () => {
    const root = makeTempDir();
    const sandbox = openRunSandbox(root, { sandbox: 'bwrap', limits: { processes: 64 } });
    await run(sandbox, 'true');
    const before = hostProcesses();
    // The deny list knows the classic spelling (`g() { g | g & }; g`), not this one.
    const call = runTool.execute({ command: 'echo ZygpIHsgZyB8IGcgJiB9OyBnCg== | base64 -d > bomb.sh; bash bomb.sh; sleep 2' }, sandboxContext(root, sandbox));
    const peak = await peakHostProcesses(call);
    const result = await call;
    expect(result.content).toMatch(/^exit=\d+/);
    expect(result.content).toMatch(/\[rein: the sandbox reached its limit of 64 processes and threads at once \(permissions\.limits\.processes\)/);
    // The sandbox's 64, and what else the machine's other users started meanwhile.
    expect(peak - before).toBeLessThan(64 + 40);
    const after = await run(sandbox, 'p=(/proc/[0-9]*); echo "${#p[@]}"');
    expect(after.exitCode).toBe(0);
    // bubblewrap's init, the supervisor, this command's reporter and shell: the bomb is gone.
    expect(Number(after.output.finish().trim())).toBeLessThanOrEqual(8);
  }, 60_000);

  it('a fork bomb whose leader never ends is held until its timeout, and the run goes on', async () => {
    const root = makeTempDir();
    const sandbox = openRunSandbox(root, { sandbox: 'bwrap', limits: { processes: 48 } });
    await run(sandbox, 'true');
    const before = hostProcesses();
    const bomb = run(sandbox, 'bomb() { bomb | bomb; }; bomb', 3_000);
    const peak = await peakHostProcesses(bomb);
    expect((await bomb).ending).toBe('timeout');
    expect((await bomb).processLimitReached).toBe(true);
    expect(peak - before).toBeLessThan(48 + 40);
    const after = await run(sandbox, 'echo still here');
    expect(after.output.finish()).toBe('still here\n');
  }, 60_000);

  it('stops a memory hog at the memory limit, and the model is told which limit', async () => {
    const root = makeTempDir();
    const sandbox = openRunSandbox(root, { sandbox: 'bwrap', limits: { memoryMiB: 256 } });
    const rssBefore = process.memoryUsage().rss;
    const result = await runTool.execute({ command: 'python3 -c "a = bytearray(2 * 1024**3); print(len(a))"' }, sandboxContext(root, sandbox));
    expect(result.content).toMatch(/^exit=1\n/);
    expect(result.content).toContain('MemoryError');
    expect(result.content).toContain('[rein: each process in the sandbox may allocate at most 256 MiB (permissions.limits.memoryMiB)]');
    // Below the limit the same program runs.
    const small = await run(sandbox, 'python3 -c "a = bytearray(64 * 1024**2); print(len(a))"');
    expect(small.output.finish()).toBe(`${64 * 1024 ** 2}\n`);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 ** 2);
  }, 60_000);

  it('applies the defaults to every command, and nothing in the sandbox can raise them', async () => {
    const root = makeTempDir();
    const sandbox = openRunSandbox(root, { sandbox: 'bwrap' });
    const { memoryBytes, processes } = sandboxLimits();
    const shown = await run(sandbox, 'ulimit -d; ulimit -u; ulimit -H -d');
    expect(shown.output.finish().trim().split('\n')).toEqual([String(memoryBytes / 1024), String(processes), String(memoryBytes / 1024)]);
    const raised = await run(sandbox, 'ulimit -d unlimited && echo raised');
    expect(raised.exitCode).not.toBe(0);
    expect(raised.output.finish()).not.toContain('raised');
    // A background job runs under them too.
    const job = await sandbox.startJob('ulimit -d');
    await sandbox.waitJob(job.id, 5_000, signal);
    expect(sandbox.readJob(job.id, 1000).text.trim()).toBe(String(memoryBytes / 1024));
  }, 60_000);

  it('nothing in the sandbox can raise the process limit or leave its cgroup', async () => {
    const sandbox = openRunSandbox(makeTempDir(), { sandbox: 'bwrap', limits: { processes: 64 } });
    const tried = await run(
      sandbox,
      'for f in /sys/fs/cgroup/pids/rein-*/pids.max /sys/fs/cgroup/pids/cgroup.procs /sys/fs/cgroup/unified/cgroup.procs; do echo $$ > "$f" && echo "wrote $f"; done; ' +
        'ulimit -u unlimited && echo raised; true',
    );
    expect(tried.output.finish()).not.toMatch(/wrote|raised/);
    // Still held: 100 sleeps do not all start.
    const many = await run(sandbox, 'for i in $(seq 100); do sleep 5 & done 2>/dev/null; p=(/proc/[0-9]*); echo "${#p[@]}"; kill $(jobs -p) 2>/dev/null; true');
    expect(Number(many.output.finish().trim().split('\n').at(-1))).toBeLessThanOrEqual(64);
  }, 60_000);

  // A variant: a background job that takes every process the run's sandbox may hold must neither block the
  // verification command nor decide its verdict (it runs in a sandbox, and a cgroup, of its own).
  it('a background fork bomb holding the whole limit cannot fail, pass or block the verification command', async () => {
    const root = makeTempDir();
    const sandbox = openRunSandbox(root, { sandbox: 'bwrap', limits: { processes: 48 } }, { isCheck: (command) => command.startsWith('exit ') });
    const job = await sandbox.startJob('echo ZygpIHsgZyB8IGc7IH07IGcK | base64 -d > bomb.sh; bash bomb.sh');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // The job now holds what the run's sandbox may hold: an ordinary command is reported not started, and the sandbox
    // (with the job) lives on.
    // (Until the bomb has filled it, a command may still start: asked again until it does not.)
    let ordinary = await run(sandbox, 'echo hi', 20_000);
    for (let tries = 0; tries < 20 && ordinary.exitCode === 0; tries++) ordinary = await run(sandbox, 'echo hi', 20_000);
    expect(ordinary.exitCode).toBe(126);
    expect(ordinary.output.finish()).toMatch(/^rein: not started: the sandbox holds its limit of 48 processes and threads/);
    const started = Date.now();
    const failing = await run(sandbox, 'exit 1', 20_000);
    const passing = await run(sandbox, 'exit 0', 20_000);
    expect([failing.ending, failing.exitCode, passing.ending, passing.exitCode]).toEqual(['exited', 1, 'exited', 0]);
    expect(Date.now() - started).toBeLessThan(10_000);
    // Stopped, the job frees them, and the run's sandbox runs commands again.
    await sandbox.stopJob(job.id);
    expect((await run(sandbox, 'echo back', 20_000)).output.finish()).toBe('back\n');
  }, 60_000);

  it('a command run on its own (no run sandbox) runs under them too', async () => {
    const root = makeTempDir();
    const policy = { ...makeContext(root).policy, sandbox: 'bwrap' as const, limits: { memoryMiB: 300, processes: 77 } };
    const result = await runColdCommand('ulimit -d; ulimit -u', { root, policy, timeoutMs: 10_000, signal, outputCap: 1000 });
    expect(result.output.finish().trim().split('\n')).toEqual([String(300 * 1024), '77']);
  }, 60_000);

  it('a verification command runs under them in its own sandbox', async () => {
    const root = makeTempDir();
    const sandbox = openRunSandbox(
      root,
      { sandbox: 'bwrap', limits: { memoryMiB: 300, processes: 99 } },
      { isCheck: (command) => command.startsWith('ulimit') },
    );
    const shown = await run(sandbox, 'ulimit -d; ulimit -u');
    expect(shown.output.finish().trim().split('\n')).toEqual([String(300 * 1024), '99']);
  }, 60_000);
});
