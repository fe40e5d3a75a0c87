import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoff, retry } from './retry.js';

test('backoff doubles from the base', () => assert.deepEqual([1, 2, 3].map((attempt) => backoff(attempt)), [100, 200, 400]));
test('retry calls exactly `attempts` times', async () => {
  let calls = 0;
  await assert.rejects(retry(() => { calls++; throw new Error('down'); }, { attempts: 3, sleep: async () => {} }));
  assert.equal(calls, 3, 'retry makes `attempts` calls in all before giving up');
});
