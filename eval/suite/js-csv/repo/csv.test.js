import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from './csv.js';

test('rows keyed by header', () => assert.deepEqual(parse('id,total\n1,9.50\n2,3.00'), [{ id: '1', total: '9.50' }, { id: '2', total: '3.00' }]));
test('trailing newline', () => assert.equal(parse('id,total\n1,9.50\n').length, 1, 'a final newline does not add an empty row'));
