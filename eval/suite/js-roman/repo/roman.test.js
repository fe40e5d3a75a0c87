import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toRoman } from './roman.js';

test('small numbers', () => assert.equal(toRoman(3), 'III'));
test('exact values', () => assert.equal(toRoman(10), 'X', 'a number equal to a numeral value uses that numeral'));
