import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoff, retry } from './retry.js';

test('check: backoff', () => {
  assert.deepEqual([1, 2, 3, 4].map((attempt) => backoff(attempt)), [100, 200, 400, 800]);
  assert.equal(backoff(20), 5000);
});
test('check: retry', async () => {
  let calls = 0;
  const slept = [];
  const result = await retry(() => { calls++; if (calls < 3) throw new Error('down'); return 'ok'; }, { attempts: 3, sleep: async (ms) => { slept.push(ms); } });
  assert.equal(result, 'ok');
  assert.deepEqual(slept, [100, 200]);
});
