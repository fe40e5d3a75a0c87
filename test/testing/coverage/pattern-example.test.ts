import { describe, expect, it } from 'vitest';
import { examplePassing } from '../../../testing/coverage/pattern-example.js';

describe("an output a check's pass pattern matches (testing/coverage/pattern-example.ts)", () => {
  it('finds one for literals, anchors, escapes, classes, groups, alternation and quantifiers, and it matches', () => {
    const patterns = [
      '^0 problems',
      'ok',
      '^Ran \\d+ tests? in [0-9.]+s$',
      '(?:PASS|OK)\\b',
      '^(?<count>\\d{2,}) passed, 0 failed$',
      '[^\\n]*All checks passed\\.',
      '^[A-Z][a-z]+: \\w+ \\S+$',
      'exit code:\\s*0',
      'a{3}b?c*',
      '\\x41\\u0042',
      '^Tests:\\s+\\d+ passed, \\d+ total$\\n^Time',
      '[^0-9]done',
    ];
    for (const pattern of patterns) {
      const example = examplePassing(pattern);
      expect(example, pattern).not.toBeNull();
      expect(new RegExp(pattern, 'm').test(example!), `${pattern} on ${JSON.stringify(example)}`).toBe(true);
    }
    expect(examplePassing('^0 problems')).toBe('0 problems');
    expect(examplePassing('a{3}b?c*')).toBe('aaa');
  });

  it('gives null, never a wrong example, for what it does not read or what cannot match', () => {
    for (const pattern of ['^(?=0) problems', '(a)\\1', '(?!x)y', 'a(?<=a)b', '(unclosed', '[unclosed', 'x\\'])
      expect(examplePassing(pattern), pattern).toBeNull();
    // Its own guess checked: a word boundary between two word characters cannot match, so no example.
    expect(examplePassing('a\\bb')).toBeNull();
    // The caller's test decides: the observation a run gives starts with its exit line.
    expect(examplePassing('^0 problems', (text) => /^exit=0\n0 problems/.test(`exit=0\n${text}`))).toBe('0 problems');
    expect(examplePassing('^0 problems', () => false)).toBeNull();
  });
});
