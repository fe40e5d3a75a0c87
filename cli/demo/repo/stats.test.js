import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mean, median } from './stats.js';

test('mean of a few numbers', () => {
  assert.equal(mean([2, 4, 6]), 4);
});

test('median of an odd-length list', () => {
  assert.equal(median([3, 1, 2]), 2);
});

test('median sorts numerically, not as text', () => {
  assert.equal(median([10, 9, 2, 1]), 5.5);
});
