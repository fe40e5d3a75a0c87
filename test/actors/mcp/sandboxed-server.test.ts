import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpHub } from '../../../actors/mcp/hub.js';
import { resolveSandbox } from '../../../tools/sandbox/launch/bubblewrap.js';
import { makeTempDir } from '../../helpers/workspace.js';
import { EVERYTHING, FILESYSTEM, openHub, stdio } from './mcp-fixtures.js';

const open: McpHub[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((hub) => hub.close()));
});

const bwrap = resolveSandbox({ sandbox: 'auto', network: false }).kind === 'bwrap';

describe.runIf(bwrap)("a stdio server in the run's sandbox", () => {
  it('gets only the allow-listed environment plus its own env', async () => {
    const env = { ...process.env, OPENAI_API_KEY: 'sk-harness-secret-0001', REIN_TEST_SECRET_TOKEN: 'hunter2-hunter2', REIN_TEST_NAME: 'x' };
    const opened = await openHub({ every: stdio([EVERYTHING, 'stdio'], { env: { DOCS_INDEX: 'v2' } }) }, { sandbox: 'bwrap' }, env);
    open.push(opened.hub);
    expect(opened.notes.find((note) => note.kind === 'mcp_server' && note.state === 'ready')).toMatchObject({
      where: expect.stringContaining('bubblewrap sandbox (network off)'),
    });
    const outcome = await opened.call('mcp__every__get-env', {});
    expect(outcome.ok).toBe(true);
    expect(outcome.content).toContain('"DOCS_INDEX": "v2"');
    expect(outcome.content).not.toContain('sk-harness-secret-0001');
    expect(outcome.content).not.toContain('hunter2');
    expect(outcome.content).not.toContain('REIN_TEST_NAME');
  });

  it('sees the workspace but not the rest of /tmp; unsandboxed (sandbox: false) it would', async () => {
    const outside = makeTempDir('rein-mcp-outside-');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'outside the workspace');
    const sandboxed = await openHub({ fs: stdio([FILESYSTEM, '/']) }, { sandbox: 'bwrap' });
    open.push(sandboxed.hub);
    fs.writeFileSync(path.join(sandboxed.root, 'inside.txt'), 'in the workspace');
    expect(await sandboxed.call('mcp__fs__read_text_file', { path: path.join(sandboxed.root, 'inside.txt') })).toMatchObject({
      ok: true,
      content: 'in the workspace',
    });
    expect(await sandboxed.call('mcp__fs__read_text_file', { path: path.join(outside, 'secret.txt') })).toMatchObject({ ok: false });
    const bare = await openHub({ fs: stdio([FILESYSTEM, '/'], { sandbox: false }) }, { sandbox: 'bwrap' });
    open.push(bare.hub);
    expect(await bare.call('mcp__fs__read_text_file', { path: path.join(outside, 'secret.txt') })).toMatchObject({
      ok: true,
      content: 'outside the workspace',
    });
  });
});
