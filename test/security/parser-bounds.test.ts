import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { checkToolSchema } from '../../actors/mcp/tool-schema.js';
import { MalformedResponseError } from '../../actors/model/retry.js';
import { collectStream } from '../../actors/model/stream-completion.js';
import { loadRuns } from '../../cli/replay/load-runs.js';
import { MAX_JSON_DEPTH } from '../../lib/json-depth.js';
import { compileRuleRegex } from '../../lib/rule-regex.js';
import { argsHash, callFacts } from '../../rules/approvals/call-facts.js';
import { judgeCall } from '../../rules/approvals/evaluate.js';
import { wildcard } from '../../rules/approvals/patterns.js';
import { rulesSchema } from '../../rules/schema.js';
import { prepareRunPlacement } from '../../run/record/run-placement.js';
import { call, reply, runScripted } from '../../testing/index.js';
import { checkCommand } from '../../tools/permissions/deny-list.js';
import { makeTempDir } from '../helpers/workspace.js';

// Issue 38, class 5: every parser has bounds; nothing from outside holds the harness, crashes it, or reaches a prototype.

const toolChunk = (part: Record<string, unknown>) => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 0,
  model: 'm',
  choices: [{ index: 0, delta: { tool_calls: [part] }, finish_reason: null }],
});

async function collect(...parts: Record<string, unknown>[]) {
  const controller = new AbortController();
  async function* chunks() {
    for (const part of parts) yield toolChunk(part) as never;
  }
  return collectStream(Object.assign(chunks(), { controller }), 10_000);
}

describe('rules patterns run in linear time or are refused at load', () => {
  it.each([
    ['a deny pattern', { permissions: { deny: ['^(?=.*rm)(?=.*-rf).*$'] } }],
    ['an approval commandRegex', { approvals: { ask: [{ tool: 'run', commandRegex: '(a+)+\\1' }] } }],
    ['a check pass pattern', { verification: { checks: [{ name: 'lint', command: 'x', passPattern: '(?<=ok) done' }] } }],
  ])('%s that needs backtracking is a clear error', (_, rules) => {
    const parsed = rulesSchema.safeParse(rules);
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain('rein can run in linear time');
  });

  it('a wildcard rule with many stars, and a nested repeat, run on the linear-time engine', () => {
    const stars = `${'*a'.repeat(30)}*b`;
    // The `l` flag: V8 refuses to compile a pattern for it that could backtrack, so it runs in time linear in the command.
    expect(wildcard(stars).flags).toContain('l');
    const policy = { global: { deny: [], ask: [`run(${stars})`], allow: [], default: 'allow' as const } };
    expect(judgeCall(callFacts('run', JSON.stringify({ command: 'a'.repeat(20_000) })), policy, [], 'h').verdict).toBe('allow');
    expect(compileRuleRegex('(x+x+)+y').flags).toContain('l');
    expect(checkCommand('x'.repeat(20_000), ['(x+x+)+y'])).toBeNull();
  });
});

describe('a streamed reply’s tool-call index', () => {
  it.each([2 ** 32 - 2, -1, 1.5, '__proto__', 'constructor', 1024])('%j is refused as a malformed reply', async (index) => {
    await expect(collect({ index, id: 'x', function: { name: 'run', arguments: '{}' } })).rejects.toBeInstanceOf(MalformedResponseError);
    expect(([] as unknown as Record<string, unknown>).run).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('function');
  });

  it('calls arriving out of order are joined by index and kept in order', async () => {
    const completion = await collect(
      { index: 1, id: 'b', function: { name: 'grep', arguments: '{"pattern":' } },
      { index: 0, id: 'a', function: { name: 'run', arguments: '{}' } },
      { index: 1, function: { arguments: '"x"}' } },
    );
    expect(completion.choices[0]!.message.tool_calls?.map((item) => [item.id, (item as { function: { arguments: string } }).function.arguments])).toEqual([
      ['a', '{}'],
      ['b', '{"pattern":"x"}'],
    ]);
  });
});

describe('nesting depth', () => {
  const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

  it('arguments nested 20,000 deep become a clear error for the model; the run goes on and its files are written', async () => {
    const run = await runScripted({
      testCmd: 'true',
      rules: { verification: { gate: false }, phases: { plan: { enabled: false } } },
      script: [reply(call('read_file', `{"path":${'['.repeat(20_000)}${']'.repeat(20_000)}}`)), reply(call('finish', { summary: 'x' }))],
    });
    expect(run.output.status).toBe('done');
    const tool = run.lines('tool')[0] as { result?: string } | undefined;
    expect(tool?.result).toMatch(new RegExp(`deeper than ${MAX_JSON_DEPTH} levels`));
  }, 60_000);

  it('the approval screen and its hash take such arguments as text', () => {
    const raw = deep(200_000);
    expect(typeof callFacts('run', raw).args).toBe('string');
    expect(argsHash('run', raw)).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('decompression', () => {
  it('a gzip bomb in `rein replay` is refused with a clear error, its memory never taken', () => {
    const dir = makeTempDir();
    const file = path.join(dir, 'bomb.jsonl.gz');
    fs.writeFileSync(file, gzipSync(Buffer.alloc(600 * 1024 * 1024, 0x20)));
    expect(fs.statSync(file).size).toBeLessThan(2 * 1024 * 1024);
    const before = process.memoryUsage().rss;
    const loaded = loadRuns(file);
    expect(loaded.runs).toEqual([]);
    expect(loaded.skipped).toEqual([{ file, why: expect.stringMatching(/larger than 512 MiB, more than rein reads/) }]);
    expect(process.memoryUsage().rss - before).toBeLessThan(700 * 1024 * 1024);
  });
});

describe('object keys from outside never reach a prototype', () => {
  it('an MCP tool schema naming __proto__ is refused', () => {
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      const checked = checkToolSchema({ type: 'object', properties: JSON.parse(`{"${name}": {"type": "object"}}`) });
      expect(checked.ok).toBe(false);
    }
  });
});

describe('.rein/ is followed only as a real folder of the workspace', () => {
  it.each(['.rein/runs', '.rein/runs/abc'])('a repository that ships %s as a symlink cannot choose where the run’s files go', (link) => {
    const workspace = fs.realpathSync(makeTempDir());
    const elsewhere = fs.realpathSync(makeTempDir());
    fs.mkdirSync(path.join(workspace, path.dirname(link)), { recursive: true });
    fs.symlinkSync(elsewhere, path.join(workspace, link));
    expect(() => prepareRunPlacement(workspace, { runDir: path.join(workspace, '.rein', 'runs', 'abc') })).toThrow(
      /is a symlink; inside the workspace rein follows only real folders/,
    );
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });
});
