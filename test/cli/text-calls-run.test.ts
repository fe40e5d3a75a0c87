import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type OpenAIStub, type StubRequest, startOpenAIStub } from '../../testing/index.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

function buggyRepo(): string {
  const repo = makeTempDir('rein-text-calls-');
  writeFileSync(join(repo, 'stats.js'), 'export function mean(xs) {\n  return xs.reduce((a, b) => a + b, 0) / (xs.length + 1);\n}\n');
  writeFileSync(
    join(repo, 'stats.test.js'),
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { mean } from './stats.js';\ntest('mean', () => assert.equal(mean([1, 2, 3]), 2));\n",
  );
  return repo;
}

const hermes = (name: string, args: unknown) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

/** The newest tool result, however the request carries it: a `tool` message (native) or a `<tool_response>` block (prompted). */
function lastResult(request: StubRequest): string | null {
  const last = request.messages.at(-1)!;
  if (last.role === 'tool') return last.content;
  const blocks = [...String(last.content).matchAll(/<tool_response>\n([\s\S]*?)\n<\/tool_response>/g)];
  return blocks.at(-1)?.[1] ?? null;
}

/** A local model served without a tool-call parser: every call comes back as Hermes text in `content`, never as tool_calls. */
function hermesOnly(request: StubRequest) {
  const result = lastResult(request);
  if (result === null) return { content: `Let me look at the code.\n${hermes('read_file', { path: 'stats.js' })}` };
  if (result.startsWith('[stats.js')) return { content: hermes('edit_file', { path: 'stats.js', old: '(xs.length + 1)', new: 'xs.length' }) };
  if (result.startsWith('Edit applied')) return { content: hermes('run', { command: 'node --test' }) };
  if (result.startsWith('exit=0')) return { content: `The tests pass.\n${hermes('finish', { summary: 'mean() divides by the length.' })}` };
  return { content: `unexpected: ${result.slice(0, 80)}` };
}

describe('rein run against an endpoint that only writes calls as text', () => {
  let stub: OpenAIStub | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  it('solves the task from Hermes blocks, records proper tool_calls and traces the recovery', async () => {
    stub = await startOpenAIStub(hermesOnly);
    const repo = buggyRepo();
    const result = await runCli(['run', repo, 'Fix the failing test in stats.test.js', '--test-cmd', 'node --test', '--model', 'qwen-local', '--json'], {
      env: cleanEnv({ OPENAI_BASE_URL: stub.url }),
    });
    expect(result.stderr).toContain('rein: done');
    expect(result.code).toBe(0);
    expect(readFileSync(join(repo, 'stats.js'), 'utf8')).toContain('/ xs.length');
    const summary = JSON.parse(result.stdout.trim().split('\n').at(-1)!);
    expect(summary).toMatchObject({ status: 'done', steps: 4, summary: 'mean() divides by the length.' });
    const trace = readFileSync(summary.trace, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(trace.filter((line) => line.kind === 'calls_recovered').map((line) => line.shapes)).toEqual([
      ['<tool_call>+json'],
      ['<tool_call>+json'],
      ['<tool_call>+json'],
      ['<tool_call>+json'],
    ]);
    // Two text replies in a row: auto switches to prompted tool calling, once, and says why.
    expect(trace.filter((line) => line.kind === 'tool_calling')).toEqual([expect.objectContaining({ step: 2, mode: 'prompted' })]);
    expect(stub.requests.map((request) => Boolean(request.tools))).toEqual([true, true, false, false]);
    // The record holds proper assistant messages with tool_calls, each result paired with its call.
    const record = readFileSync(join(summary.runDir ?? join(summary.trace, '..'), 'record.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const assistants = record.filter((message) => message.role === 'assistant');
    expect(assistants[0]).toMatchObject({ content: 'Let me look at the code.', tool_calls: [{ function: { name: 'read_file' } }] });
    const ids = assistants.flatMap((message) => message.tool_calls.map((call: { id: string }) => call.id));
    expect(record.filter((message) => message.role === 'tool').map((message) => message.tool_call_id)).toEqual(ids);
    // Prompted requests are cache-stable: each one starts with the previous one's messages, byte for byte.
    const [third, fourth] = stub.requests.slice(2).map((request) => request.messages.map((message) => JSON.stringify(message)));
    expect(fourth!.slice(0, third!.length - 1)).toEqual(third!.slice(0, -1));
  });
});
