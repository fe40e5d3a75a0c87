import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countWords, longestWord } from './words.js';

test('counts words separated by spaces', () => assert.equal(countWords('one two three'), 3));
test('counts words across runs of whitespace', () => assert.equal(countWords('one  two\nthree '), 3, 'words are separated by any run of whitespace'));
test('the longest word is the first of the longest', () => assert.equal(longestWord('large tiny huger'), 'large', 'ties go to the word that comes first'));
