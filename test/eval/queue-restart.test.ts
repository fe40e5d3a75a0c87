import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../helpers/wait.js';
import { writeTaskSet } from './eval-fixtures.js';
import { cleanUp, keyOf, readRecords, startEval, startRedis, startWorker, tempDir } from './queue-fixtures.js';

afterAll(cleanUp);

describe('rein eval --queue: Redis restarts mid-eval', () => {
  it.each([
    { persist: true, what: 'with its append-only file: the queue survives' },
    { persist: false, what: 'without persistence: the queue is lost and the coordinator enqueues the missing jobs again' },
  ])(
    '$what; coordinator and worker reconnect, nothing is lost or counted twice',
    async ({ persist }) => {
      const tasks = writeTaskSet(['add', 'shout']);
      const redis = await startRedis({ persist });
      const worker = startWorker(redis.url);
      const out = join(tempDir('rein-queue-restart-'), 'out');
      const coordinator = startEval([tasks, '--preset', 'default', '--preset', 'no-verification-gate', '--queue', redis.url, '--out', out]);
      const results = join(out, 'results.jsonl');
      await waitUntil(() => existsSync(results) && readFileSync(results, 'utf8').trim().length > 0, 'the first result', 120_000);
      await redis.restart();

      expect(await coordinator.exited, coordinator.stderr()).toBe(0);
      const records = readRecords(out);
      expect(records.map(keyOf).sort()).toEqual(['add × default #0', 'add × no-verification-gate #0', 'shout × default #0', 'shout × no-verification-gate #0']);
      expect(records.filter((record) => record.status === 'crash')).toEqual([]);
      expect(coordinator.stderr()).toContain('lost the connection to Redis');
      expect(coordinator.stderr()).toContain('reconnected to Redis');
      await waitUntil(() => worker.log().includes('reconnected to Redis'), 'the worker to reconnect', 30_000);
      if (!persist) expect(coordinator.stderr()).toMatch(/enqueued \d+ jobs? again that Redis no longer had/);
    },
    300_000,
  );
});
