import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from './csv.js';

test('check: comma exports', () => assert.deepEqual(parse('id,total\n1,9.50\n'), [{ id: '1', total: '9.50' }]));
test('check: semicolon exports', () => assert.deepEqual(parse('id;total\n7;1,25\n', { separator: ';' }), [{ id: '7', total: '1,25' }]));
