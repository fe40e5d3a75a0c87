import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpHub } from '../../../actors/mcp/hub.js';
import { waitUntil } from '../../helpers/wait.js';
import { makeTempDir } from '../../helpers/workspace.js';
import { EVERYTHING, FILESYSTEM, MEMORY, openHub, stdio } from './mcp-fixtures.js';

const open: McpHub[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((hub) => hub.close()));
});

const memory = () => stdio([MEMORY], { env: { MEMORY_FILE_PATH: path.join(makeTempDir('rein-mcp-memory-'), 'memory.json') } });

describe("MCP tools under rein's rules", () => {
  it('the deny list blocks a string argument of a tool not annotated read-only, before the server sees it', async () => {
    const opened = await openHub({ memory: memory() }, { deny: ['\\bDROP\\s+TABLE\\b'] });
    open.push(opened.hub);
    const sudo = await opened.call('mcp__memory__create_entities', { entities: [{ name: 'x', entityType: 'note', observations: ['then sudo make install'] }] });
    expect(sudo).toMatchObject({
      ok: false,
      content: expect.stringMatching(/^Tool error: Blocked by policy: privilege escalation/),
      effect: { outcome: 'refused' },
    });
    const custom = await opened.call('mcp__memory__add_observations', { observations: [{ entityName: 'x', contents: ['DROP TABLE users'] }] });
    expect(custom).toMatchObject({ ok: false, content: expect.stringContaining('matches the deny pattern'), effect: { outcome: 'refused' } });
    expect(JSON.parse((await opened.call('mcp__memory__read_graph', {})).content)).toEqual({ entities: [], relations: [] });
  });

  it("a server's tools filter keeps only the tools it names (globs too)", async () => {
    const opened = await openHub({ fs: stdio([FILESYSTEM, '.'], { tools: ['read_*', 'list_directory'] }) });
    open.push(opened.hub);
    expect(opened.tools.map((tool) => tool.name).sort()).toEqual([
      'mcp__fs__list_directory',
      'mcp__fs__read_file',
      'mcp__fs__read_media_file',
      'mcp__fs__read_multiple_files',
      'mcp__fs__read_text_file',
    ]);
  });

  it('a server whose tools change across a restart is traced and the changed tools are refused', async () => {
    const flag = path.join(makeTempDir('rein-mcp-flag-'), 'started');
    const script = `if [ -e "$0" ]; then exec "$1" "$3" .; else : > "$0"; exec "$1" "$2" stdio; fi`;
    const opened = await openHub({ shifty: stdio(['-c', script, flag, process.execPath, EVERYTHING, FILESYSTEM], {}, 'bash') });
    open.push(opened.hub);
    const handle = opened.hub.handles[0]!;
    expect(await opened.call('mcp__shifty__echo', { message: 'a' })).toMatchObject({ ok: true });
    process.kill(-handle.pid!, 'SIGKILL');
    await waitUntil(() => opened.notes.some((note) => note.kind === 'mcp_tools' && note.change === 'changed'), 'the changed tools to be noted');
    const changed = opened.notes.find((note) => note.kind === 'mcp_tools' && note.change === 'changed');
    expect(changed).toMatchObject({
      tools: expect.arrayContaining([{ server: 'shifty', tool: 'echo', name: 'mcp__shifty__echo', reason: 'the server no longer lists echo: refused' }]),
    });
    expect(await opened.call('mcp__shifty__echo', { message: 'b' })).toMatchObject({
      ok: false,
      content: 'Tool error: the server no longer lists echo; mcp__shifty__echo is refused for the rest of the run',
      effect: { outcome: 'refused' },
    });
  });
});

describe('a tool list changed while connected (notifications/tools/list_changed)', () => {
  it("is compared with the run's: the changed tool is traced and refused, the others still work", async () => {
    const shifting = path.join(import.meta.dirname, 'fixtures', 'shifting-server.mjs');
    const opened = await openHub({ shifting: stdio([shifting]) });
    open.push(opened.hub);
    expect(await opened.call('mcp__shifting__lookup', { word: 'cat' })).toMatchObject({ ok: true, content: 'cat: a word' });
    expect(await opened.call('mcp__shifting__bump', {})).toMatchObject({ ok: true });
    await waitUntil(() => opened.notes.some((note) => note.kind === 'mcp_tools' && note.change === 'changed'), 'the change to be noted');
    expect(opened.notes.find((note) => note.kind === 'mcp_tools' && note.change === 'changed')).toMatchObject({
      tools: [
        { server: 'shifting', tool: 'lookup', name: 'mcp__shifting__lookup', reason: 'the server changed the definition of lookup during the run: refused' },
      ],
    });
    expect(await opened.call('mcp__shifting__lookup', { word: 'cat' })).toMatchObject({ ok: false, effect: { outcome: 'refused' } });
    expect(await opened.call('mcp__shifting__bump', {})).toMatchObject({ ok: true });
  });
});
