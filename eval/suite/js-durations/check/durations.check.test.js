import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDuration } from './durations.js';

test('check: units', () => {
  assert.equal(parseDuration('1h30m'), 5400);
  assert.equal(parseDuration('2d4h'), 187200);
  assert.equal(parseDuration('0s'), 0);
});
test('check: not a duration', () => {
  assert.throws(() => parseDuration(''), RangeError);
  assert.throws(() => parseDuration('soon'), RangeError);
});
