import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mean, median } from './stats.js';

test('check: mean', () => { assert.equal(mean([2, 4, 6]), 4); assert.equal(mean([5]), 5); });
test('check: median', () => {
  assert.equal(median([10, 9, 1]), 9);
  assert.equal(median([100, 20, 3, 4]), 12);
  assert.equal(median([7]), 7);
});
