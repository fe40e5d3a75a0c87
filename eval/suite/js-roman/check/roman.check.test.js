import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toRoman } from './roman.js';

test('check: numerals', () => {
  assert.equal(toRoman(10), 'X');
  assert.equal(toRoman(4), 'IV');
  assert.equal(toRoman(1994), 'MCMXCIV');
  assert.equal(toRoman(3999), 'MMMCMXCIX');
});
test('check: range', () => {
  assert.throws(() => toRoman(0), RangeError);
  assert.throws(() => toRoman(4000), RangeError);
  assert.throws(() => toRoman(2.5), RangeError);
});
