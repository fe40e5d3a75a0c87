import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mean, median } from './stats.js';

test('mean of a few numbers', () => assert.equal(mean([2, 4, 6]), 4, 'the mean divides by the count'));
test('median of an odd-length list', () => assert.equal(median([3, 1, 2]), 2));
test('median of numbers with different digit counts', () => assert.equal(median([10, 9, 1]), 9, 'numbers sort by value, not as text'));
