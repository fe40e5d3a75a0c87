import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { editFileTool } from '../../tools/edit-file.js';
import { grepTool } from '../../tools/grep.js';
import { readFileTool } from '../../tools/read-file.js';
import type { ToolContext } from '../../tools/types.js';
import { openRunSandbox, sandboxContext } from '../helpers/run-sandbox.js';
import { waitUntil } from '../helpers/wait.js';
import { makeTempDir } from '../helpers/workspace.js';

// Issue 25, item 2: the path guard checks a name; a background job in the sandbox swaps a symlink in between the
// check and the use, in a loop. Every try must stay inside the workspace.
const TRIES = { read: 1500, grep: 300, edit: 1000 };

async function setup() {
  const root = makeTempDir();
  const outside = makeTempDir();
  fs.mkdirSync(path.join(root, 'd'));
  fs.writeFileSync(path.join(root, 'd', 'file'), 'A inside\n');
  fs.writeFileSync(path.join(root, 'plain'), 'A inside\n');
  fs.writeFileSync(path.join(outside, 'file'), 'A CANARY outside\n');
  fs.writeFileSync(path.join(outside, 'plain'), 'A CANARY outside\n');
  const sandbox = openRunSandbox(root, { sandbox: 'bwrap' });
  const ctx: ToolContext = sandboxContext(root, sandbox, { policy: { sandbox: 'bwrap' } });
  // Swaps the directory `d` for a link to the outside folder and back, and `plain` for a link to the outside file.
  await sandbox.startJob(
    `spin() { for ((k = 0; k < 300; k++)); do :; done; }; while :; do mv d d.real; ln -s ${outside} d; spin; rm d; mv d.real d; spin; ln -s ${outside}/plain p.link; cp plain p.keep; mv -f p.link plain; spin; mv -f p.keep plain; spin; done`,
  );
  await waitUntil(() => fs.existsSync(path.join(root, 'p.keep')) || fs.existsSync(path.join(root, 'd.real')), 'the swapping job to run');
  const outsideUnchanged = () => {
    expect(fs.readdirSync(outside).sort()).toEqual(['file', 'plain']);
    expect(fs.readFileSync(path.join(outside, 'file'), 'utf8')).toBe('A CANARY outside\n');
    expect(fs.readFileSync(path.join(outside, 'plain'), 'utf8')).toBe('A CANARY outside\n');
  };
  return { root, ctx, outsideUnchanged };
}

describe('file tools against a job swapping symlinks in a loop (bubblewrap)', () => {
  it(`read_file: ${TRIES.read} reads, none of a file outside the workspace`, async () => {
    const { ctx, outsideUnchanged } = await setup();
    let leaked = 0;
    let read = 0;
    for (let i = 0; i < TRIES.read; i++) {
      const target = i % 2 === 0 ? 'd/file' : 'plain';
      const result = await readFileTool.execute({ path: target, start: 1 }, ctx).catch((error: Error) => ({ content: `error ${error.message}` }));
      if (result.content.includes('CANARY')) leaked += 1;
      if (result.content.includes('A inside')) read += 1;
    }
    expect(leaked).toBe(0);
    // The race was on: some reads found the file in place, and the tool still works between swaps.
    expect(read).toBeGreaterThan(0);
    outsideUnchanged();
  }, 60_000);

  it(`grep: ${TRIES.grep} searches, no hit outside the workspace`, async () => {
    const { ctx, outsideUnchanged } = await setup();
    let leaked = 0;
    for (let i = 0; i < TRIES.grep; i++) {
      const result = await grepTool.execute({ pattern: 'CANARY|inside', path: '.' }, ctx).catch((error: Error) => ({ content: `error ${error.message}` }));
      if (result.content.includes('CANARY')) leaked += 1;
    }
    expect(leaked).toBe(0);
    outsideUnchanged();
  }, 60_000);

  it(`edit_file: ${TRIES.edit} edits, none writes (or leaves a temporary file) outside the workspace`, async () => {
    const { root, ctx, outsideUnchanged } = await setup();
    let applied = 0;
    for (let i = 0; i < TRIES.edit; i++) {
      const target = i % 2 === 0 ? 'd/file' : 'plain';
      const [old, replacement] = Math.floor(i / 2) % 2 === 0 ? ['A ', 'B '] : ['B ', 'A '];
      const result = await editFileTool
        .execute({ path: target, old: old!, new: replacement! }, ctx)
        .catch((error: Error) => ({ content: `error ${error.message}`, ok: false }));
      if (result.ok) applied += 1;
    }
    expect(applied).toBeGreaterThan(0);
    outsideUnchanged();
    expect(fs.readdirSync(root).filter((name) => name.endsWith('.rein-tmp'))).toEqual([]);
  }, 60_000);
});

describe('read_file with a start line below a secret header', () => {
  it('masks the key body of a key whose header is above the window', async () => {
    const root = makeTempDir();
    const body = Array.from({ length: 20 }, (_, i) => `MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC${String(i).padStart(2, '0')}`);
    fs.writeFileSync(path.join(root, 'key.pem'), ['-----BEGIN PRIVATE KEY-----', ...body, '-----END PRIVATE KEY-----', 'after'].join('\n'));
    const ctx = sandboxContext(root, openRunSandbox(root, { sandbox: 'none' }));
    const result = await readFileTool.execute({ path: 'key.pem', start: 5 }, ctx);
    expect(result.content).not.toContain('MIIEvQ');
    // Lines keep their numbers: line 5 is a masked key line, line 23 the first after the key.
    expect(result.content).toContain('    5  [redacted: private-key]');
    expect(result.content).toContain('   23  after');
  });

  it('refuses a FIFO at once instead of waiting for a writer', async () => {
    const root = makeTempDir();
    const ctx = sandboxContext(root, openRunSandbox(root, { sandbox: 'none' }));
    expect((await ctx.sandbox!.runCommand('mkfifo pipe', { timeoutMs: 5000, signal: new AbortController().signal, outputCap: 1000 })).exitCode).toBe(0);
    await expect(readFileTool.execute({ path: 'pipe', start: 1 }, ctx)).rejects.toThrow('pipe is not a regular file');
  });
});
