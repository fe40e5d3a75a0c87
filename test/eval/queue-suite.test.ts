import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { waitUntil } from '../helpers/wait.js';
import { cleanUp, keyOf, readRecords, startEval, startRedis, startWorker, tempDir } from './queue-fixtures.js';

afterAll(cleanUp);

// The quickest JavaScript tasks of the offline suite under two configurations: removing the gate flips two of them, so outcomes differ by configuration.
const TASKS = ['js-cart', 'js-median', 'js-roman'];
const SELECTION = ['eval/suite', '--preset', 'default', '--preset', 'no-verification-gate', ...TASKS.flatMap((task) => ['--task', task])];

/** The temp dirs of a worker process, by the pid its owner file names. */
function tempDirsOf(pid: number): string[] {
  return readdirSync(tmpdir())
    .filter((name) => name.startsWith('rein-worker-'))
    .filter((name) => {
      try {
        return (JSON.parse(readFileSync(join(tmpdir(), name, 'owner.json'), 'utf8')) as { pid: number }).pid === pid;
      } catch {
        return false;
      }
    });
}

describe('rein eval --queue with three rein worker processes', () => {
  it('a worker killed with SIGKILL mid-job: its job is re-run once elsewhere; the results are complete, duplicate-free and match the local pool', async () => {
    const localOut = join(tempDir('rein-queue-local-'), 'out');
    const local = await runCli(['eval', ...SELECTION, '--parallel', '2', '--out', localOut], { env: cleanEnv(), timeoutMs: 240_000 });
    expect(local.code, local.stderr).toBe(0);

    const redis = await startRedis();
    const [first, second, third] = [startWorker(redis.url), startWorker(redis.url), startWorker(redis.url)];
    const out = join(tempDir('rein-queue-out-'), 'out');
    const coordinator = startEval([...SELECTION, '--queue', redis.url, '--out', out]);

    await waitUntil(() => /: started/.test(first!.log()), 'the first worker to start a job', 120_000);
    const killedJob = /\] (.+): started/.exec(first!.log())![1]!;
    const pid = first!.child.pid!;
    first!.child.kill('SIGKILL');
    await first!.exited;
    expect(tempDirsOf(pid)).toHaveLength(1);
    // A replacement worker on the same machine clears what the killed one left.
    const replacement = startWorker(redis.url);
    await waitUntil(() => replacement.log().includes('connected to'), 'the replacement worker to connect', 60_000);
    expect(tempDirsOf(pid)).toEqual([]);

    expect(await coordinator.exited, coordinator.stderr()).toBe(0);
    const records = readRecords(out);
    const localRecords = readRecords(localOut);
    expect(records).toHaveLength(TASKS.length * 2);
    expect(new Set(records.map(keyOf)).size).toBe(records.length);
    expect(records.map(keyOf).sort()).toEqual(localRecords.map(keyOf).sort());
    for (const record of records) {
      const twin = localRecords.find((entry) => keyOf(entry) === keyOf(record))!;
      expect({ key: keyOf(record), resolved: record.resolved, status: record.status }).toEqual({
        key: keyOf(twin),
        resolved: twin.resolved,
        status: twin.status,
      });
      expect(existsSync(join(out, record.tracePath)), record.tracePath).toBe(true);
    }
    expect(records.some((record) => !record.resolved)).toBe(true);

    // The killed job ran again, on another worker, as its second and last attempt, and counts once, as a real run.
    const others = [second!, third!, replacement].map((worker) => worker.log()).join('\n');
    expect(others).toContain(`${killedJob}: started (attempt 2 of 2)`);
    const rerun = records.filter((record) => keyOf(record) === killedJob);
    expect(rerun).toHaveLength(1);
    expect(rerun[0]!.status).not.toBe('crash');

    // Same reports as the local pool, and the progress lines said how many workers were live.
    for (const file of ['summary.md', 'report.html']) expect(existsSync(join(out, file))).toBe(true);
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain('| no-verification-gate |');
    expect(coordinator.stderr()).toMatch(/\[\d+\/6, [1-4] workers?\]/);
  }, 480_000);
});
