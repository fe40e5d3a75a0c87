import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { logParser } from '../../eval/swebench/log-parsers.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'swebench');
/** What SWE-bench 5.0.2's own parsers made of each log (fixtures/swebench/record-parsed.py). */
const official = JSON.parse(readFileSync(join(fixtures, 'parsed-official.json'), 'utf8')) as Record<string, Record<string, string>>;

describe("SWE-bench's log parsers, reproduced: the same test-to-status map as the official ones on real logs", () => {
  it.each(Object.keys(official))('%s', (key) => {
    const [log, name] = key.split(' :: ') as [string, string];
    const parse = logParser(name)!;
    expect(parse).not.toBeNull();
    expect(parse(readFileSync(join(fixtures, log), 'utf8'))).toEqual(official[key]);
  });

  it('covers the three runners SWE-bench grades most (pytest, Django’s runtests, SymPy’s bin/test) on more than one log each', () => {
    const parsers = Object.keys(official).map((key) => key.split(' :: ')[1]);
    for (const name of ['parse_log_pytest', 'parse_log_django', 'parse_log_sympy'])
      expect(parsers.filter((parser) => parser === name).length).toBeGreaterThan(1);
  });

  it('takes SWE-bench’s parser names and rein’s short ones; an unknown name is null', () => {
    expect(logParser('parse_log_django')).toBe(logParser('django'));
    expect(logParser('parse_log_go')).toBeNull();
  });
});
