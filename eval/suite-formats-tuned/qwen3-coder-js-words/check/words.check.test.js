import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countWords, longestWord } from './words.js';

test('empty and blank text have no words', () => {
  assert.equal(countWords(''), 0);
  assert.equal(countWords('   \n\t'), 0);
});
test('tabs and newlines separate words', () => assert.equal(countWords('a\tb\nc d'), 4));
test('the first of the longest wins', () => assert.equal(longestWord('abc xyz ab'), 'abc'));
