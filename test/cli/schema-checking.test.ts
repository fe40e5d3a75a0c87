import { describe, expect, it } from 'vitest';
import { z } from 'zod';

// A rein command parses its rules and each tool call's arguments a few times: zod's compiled checkers (built with
// `new Function` on a schema's first parse) cost it more than they save, so the CLI turns them off for its process.

describe('schema checking in a rein command', () => {
  it('runs without compiling a checker per schema', async () => {
    z.config({ jitless: false });
    const { main } = await import('../../cli/main.js');
    const printed: string[] = [];
    const io = { stdout: { write: (text: string) => printed.push(text) }, stderr: { write: (text: string) => printed.push(text) } };
    expect(await main(['--help'], io as never)).toBe(0);
    expect(printed.join('')).toContain('rein run');
    expect(z.config().jitless).toBe(true);
  });
});
