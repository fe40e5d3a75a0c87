import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { waitUntil } from '../helpers/wait.js';
import { writeTaskSet } from './eval-fixtures.js';
import { cleanUp, keyOf, readRecords, startEval, startRedis, startWorker, tempDir } from './queue-fixtures.js';

afterAll(cleanUp);

/** Lines a worker's log has for finished runs. */
function finishedRuns(log: string): number {
  return log.split('\n').filter((line) => / #\d+: (un)?resolved \(/.test(line)).length;
}

describe('rein eval --queue: a coordinator killed mid-eval', () => {
  it('re-run with the same --out resumes: it collects what finished meanwhile and enqueues nothing twice', async () => {
    const tasks = writeTaskSet(['add', 'shout']);
    const redis = await startRedis();
    const worker = startWorker(redis.url, { args: ['--stall-seconds', '30'] });
    const out = join(tempDir('rein-queue-resume-'), 'out');
    const args = [tasks, '--preset', 'default', '--preset', 'no-verification-gate', '--queue', redis.url, '--out', out];
    const first = startEval(args);
    const results = join(out, 'results.jsonl');
    await waitUntil(() => existsSync(results) && readFileSync(results, 'utf8').trim().length > 0, 'the first result', 120_000);
    first.child.kill('SIGKILL');
    await first.exited;
    const before = readFileSync(results, 'utf8');
    const kept = before.trim().split('\n').length;
    expect(kept).toBeLessThan(4);
    // The worker goes on without a coordinator: every job finishes and its result waits in Redis.
    await waitUntil(() => finishedRuns(worker.log()) === 4, 'the worker to finish all four jobs', 120_000);

    const again = await runCli(['eval', ...args], { env: cleanEnv(), timeoutMs: 120_000 });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`resumed: kept ${kept} finished runs, ran ${4 - kept}`);
    expect(readFileSync(results, 'utf8').startsWith(before)).toBe(true);
    const records = readRecords(out);
    expect(records.map(keyOf).sort()).toEqual(['add × default #0', 'add × no-verification-gate #0', 'shout × default #0', 'shout × no-verification-gate #0']);
    for (const record of records) expect(existsSync(join(out, record.tracePath)), record.tracePath).toBe(true);

    // Each job was added to the queue once and run once; the second coordinator's adds were all duplicates.
    expect(
      worker
        .log()
        .split('\n')
        .filter((line) => line.includes(': started')).length,
    ).toBe(4);
    const client = redis.client();
    const events = await client.xrange('rein:eval:events', '-', '+');
    client.disconnect();
    const named = (event: string) => events.filter(([, fields]) => fields[fields.indexOf('event') + 1] === event).length;
    expect(named('added')).toBe(4);
    expect(named('duplicated')).toBe(4 - kept);
  }, 300_000);
});

describe('rein eval --queue: attempts', () => {
  it('with --attempts 1 a run whose worker is killed is not started again: it is recorded as a crash that says so', async () => {
    const tasks = writeTaskSet(['add']);
    const redis = await startRedis();
    const doomed = startWorker(redis.url);
    const out = join(tempDir('rein-queue-attempts-'), 'out');
    const coordinator = startEval([tasks, '--preset', 'default', '--queue', redis.url, '--out', out, '--attempts', '1']);
    await waitUntil(() => doomed.log().includes('add × default #0: started'), 'the job to start', 120_000);
    doomed.child.kill('SIGKILL');
    const survivor = startWorker(redis.url);
    expect(await coordinator.exited, coordinator.stderr()).toBe(0);
    expect(readRecords(out)).toMatchObject([
      {
        task: 'add',
        status: 'crash',
        resolved: false,
        reason: 'queue: the run lost its worker 1 time (killed, or its lock lapsed) and had 1 attempt (after 2 starts)',
      },
    ]);
    expect(survivor.log()).toContain('add × default #0: not started again');
  }, 180_000);
});
