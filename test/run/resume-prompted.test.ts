import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPairing } from '../../context/pairing.js';
import { readRecord } from '../../run/record/transcript.js';
import { type OpenAIStub, type StubRequest, startOpenAIStub } from '../../testing/index.js';
import { cleanEnv, reinBin, runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

function workspace(): string {
  const dir = makeTempDir('rein-resume-prompted-');
  writeFileSync(join(dir, 'count.js'), 'export function count(items) {\n  return items.length - 1;\n}\n');
  writeFileSync(
    join(dir, 'check.js'),
    "import { count } from './count.js';\nconst got = count([1, 2, 3]);\nconsole.log(got === 3 ? 'PASS' : `FAIL: expected 3, got ${got}`);\nprocess.exit(got === 3 ? 0 : 1);\n",
  );
  return dir;
}

const hermes = (name: string, args: unknown) => ({ content: `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>` });

/** The newest `<tool_response>` of a prompted request. */
function lastResult(request: StubRequest): string | null {
  const blocks = [...String(request.messages.at(-1)?.content ?? '').matchAll(/<tool_response>\n([\s\S]*?)\n<\/tool_response>/g)];
  return blocks.at(-1)?.[1] ?? null;
}

/**
 * A server whose chat template has no tools: a request with `tools` is a 400, as vLLM answers without
 * --enable-auto-tool-choice. Calls come back as Hermes text; each reply depends only on the last result.
 */
function noToolsServer(request: StubRequest) {
  if (request.tools)
    return { status: 400, body: '{"error":{"message":"\\"auto\\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set"}}' };
  const result = lastResult(request);
  if (result === null) return hermes('run', { command: 'node check.js' });
  if (result.startsWith('exit=1')) return hermes('read_file', { path: 'count.js' });
  if (result.startsWith('[count.js')) return hermes('edit_file', { path: 'count.js', old: 'items.length - 1;', new: 'items.length;' });
  if (result.startsWith('Edit applied')) return hermes('update_todo', { items: [{ task: 'fix count', done: true }] });
  if (result.startsWith('Todo:')) return hermes('run', { command: 'node check.js' });
  if (result.startsWith('exit=0')) return hermes('finish', { summary: 'count() returns the length.' });
  if (result.startsWith('exit=interrupted')) return hermes('run', { command: 'node check.js' });
  return { content: `lost at: ${result.slice(0, 60)}` };
}

const traceLines = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { kind: string; [key: string]: unknown });

describe('a run that switched to prompted tool calling resumes in prompted mode', () => {
  let stub: OpenAIStub;
  beforeAll(async () => {
    stub = await startOpenAIStub(async (request) => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      return noToolsServer(request);
    });
  });
  afterAll(async () => {
    await stub.close();
  });

  it('killed with SIGKILL after the switch: the resumed process never sends `tools` again, keeps the same system prompt bytes, and finishes', async () => {
    const ws = workspace();
    const runDir = join(makeTempDir('rein-resume-prompted-run-'), 'run');
    const tracePath = join(runDir, 'trace.jsonl');
    const child = spawn(
      process.execPath,
      [reinBin, 'run', ws, 'Make node check.js pass', '--test-cmd', 'node check.js', '--model', 'stub', '--run-dir', runDir],
      { env: cleanEnv({ OPENAI_BASE_URL: stub.url }), stdio: 'ignore' },
    );
    const closed = new Promise((resolve) => child.on('close', resolve));
    const models = () => (existsSync(tracePath) ? (readFileSync(tracePath, 'utf8').match(/"kind":"model"/g) ?? []).length : 0);
    // Two replies in: the switch (step 1) has been saved with the state.
    while (models() < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    child.kill('SIGKILL');
    await closed;
    const before = stub.requests.length;
    expect(stub.requests.filter((request) => request.tools)).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(runDir, 'state.json'), 'utf8')).toolCalling).toBe('prompted');

    const resumed = await runCli(['resume', runDir], { env: cleanEnv({ OPENAI_BASE_URL: stub.url }) });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/\[rein\] resumed in .* messages in the record; tools still described in the prompt, calls read from text\)/);
    const after = stub.requests.slice(before);
    expect(after.length).toBeGreaterThan(0);
    // No request of the resumed process carries `tools`: no second 400, no second switch.
    expect(after.filter((request) => request.tools)).toEqual([]);
    const trace = traceLines(tracePath);
    expect(trace.filter((line) => line.kind === 'tool_calling')).toHaveLength(1);
    expect(trace.find((line) => line.kind === 'resume')).toMatchObject({ toolCalling: 'prompted' });
    // Cache-stable across the kill: the prompted system prompt (the tool prompt in it) is the same bytes before and after.
    const systemOf = (request: StubRequest) => JSON.stringify(request.messages[0]);
    const prompted = stub.requests.filter((request) => !request.tools);
    expect(new Set(prompted.map(systemOf)).size).toBe(1);
    expect(systemOf(after[0]!)).toContain('# Tools');
    // And each resumed request starts with the one before it, byte for byte (the record the kill left is the prefix).
    const first = after[0]!.messages.map((message) => JSON.stringify(message));
    const last = after.at(-1)!.messages.map((message) => JSON.stringify(message));
    expect(last.slice(0, first.length - 1)).toEqual(first.slice(0, -1));
    const record = readRecord(join(runDir, 'record.jsonl'));
    expect(checkPairing(record)).toEqual([]);
    expect(readFileSync(join(ws, 'count.js'), 'utf8')).toContain('return items.length;');
  }, 120_000);
});
