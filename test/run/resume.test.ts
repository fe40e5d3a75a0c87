import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../context/messages.js';
import { checkPairing } from '../../context/pairing.js';
import { readRecord } from '../../run/record/transcript.js';
import { type OpenAIStub, type StubRequest, startOpenAIStub } from '../../testing/index.js';
import { cleanEnv, reinBin, runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

function workspace(): string {
  const dir = makeTempDir('rein-resume-ws-');
  writeFileSync(join(dir, 'count.js'), 'export function count(items) {\n  return items.length - 1;\n}\n');
  writeFileSync(
    join(dir, 'check.js'),
    "import { count } from './count.js';\nconst got = count([1, 2, 3]);\nconsole.log(got === 3 ? 'PASS' : `FAIL: expected 3, got ${got}`);\nprocess.exit(got === 3 ? 0 : 1);\n",
  );
  return dir;
}

/** A deterministic agent: its reply depends only on the messages, and call ids on the message count. */
function policy(request: StubRequest) {
  const last = request.messages.at(-1)!;
  const text = typeof last.content === 'string' ? last.content : '';
  const id = `call_${request.messages.length}`;
  const act = (name: string, args: unknown) => ({ toolCalls: [{ id, name, arguments: args }] });
  if (last.role === 'user' && !request.messages.some((message) => message.role === 'tool')) return act('run', { command: 'node check.js' });
  if (text.startsWith('exit=1')) return act('read_file', { path: 'count.js' });
  if (text.startsWith('[count.js')) return act('edit_file', { path: 'count.js', old: 'items.length - 1;', new: 'items.length - 1);' });
  if (text.startsWith('Edit rejected')) return act('edit_file', { path: 'count.js', old: 'items.length - 1;', new: 'items.length;' });
  if (text.startsWith('Edit applied')) return act('update_todo', { items: [{ task: 'fix count', done: true }] });
  if (text.startsWith('Todo:')) return act('run', { command: 'node check.js' });
  if (text.startsWith('exit=0')) return act('finish', { summary: 'count() returns the length.' });
  // A command the killed run had started is reported, not run again: ask for it again.
  if (text.startsWith('exit=interrupted')) {
    const asked = request.messages.at(-2)!;
    const previous = (asked.role === 'assistant' ? (asked.tool_calls ?? []) : [])[0]!.function;
    return act(previous.name, JSON.parse(previous.arguments));
  }
  return { content: 'lost' };
}

/** Model replies logged so far in a trace file (0 while it does not exist yet). */
function modelReplies(tracePath: string): number {
  return existsSync(tracePath) ? (readFileSync(tracePath, 'utf8').match(/"kind":"model"/g) ?? []).length : 0;
}

/**
 * The record as the reference run would have it: a command cut short by the kill comes back
 * as `exit=interrupted` and the agent asks for it again, so that exchange is dropped, and
 * call ids (numbered by step) are left out.
 */
function comparable(record: ChatMessage[]): string[] {
  const kept = record.filter((message, index) => {
    const interrupted = (at: number) => record[at]?.role === 'tool' && String(record[at]!.content).startsWith('exit=interrupted');
    return !interrupted(index) && !(message.role === 'assistant' && interrupted(index + 1));
  });
  return kept.map((message) => JSON.stringify(message, (key, value: unknown) => (key === 'id' || key === 'tool_call_id' ? undefined : value)));
}

describe('crash and resume', () => {
  let stub: OpenAIStub;
  let reference: ChatMessage[];
  let _fullMs = 0;
  beforeAll(async () => {
    stub = await startOpenAIStub(async (request) => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      return policy(request);
    });
    const runDir = join(makeTempDir('rein-resume-ref-'), 'run');
    const started = Date.now();
    const result = await runCli(['run', workspace(), 'Make node check.js pass', '--test-cmd', 'node check.js', '--model', 'stub', '--run-dir', runDir], {
      env: cleanEnv({ OPENAI_BASE_URL: stub.url }),
    });
    _fullMs = Date.now() - started;
    expect(result.code, result.stderr).toBe(0);
    reference = readRecord(join(runDir, 'record.jsonl'));
  });
  afterAll(async () => {
    await stub.close();
  });

  it('the uninterrupted reference run is well-formed', () => {
    expect(reference.filter((message) => message.role === 'assistant')).toHaveLength(7);
    expect(checkPairing(reference)).toEqual([]);
  });

  it('Ctrl+C stops a run cleanly with exit 130 and says how to resume; resuming finishes it, in the trace file it was given', async () => {
    const ws = workspace();
    const base = makeTempDir('rein-sigint-');
    const runDir = join(base, 'run');
    const tracePath = join(base, 'elsewhere', 'my-trace.jsonl');
    const child = spawn(
      process.execPath,
      [reinBin, 'run', ws, 'Make node check.js pass', '--test-cmd', 'node check.js', '--model', 'stub', '--run-dir', runDir, '--trace', tracePath],
      { env: cleanEnv({ OPENAI_BASE_URL: stub.url }), stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr!.on('data', (chunk) => {
      stderr += chunk;
    });
    const closed = new Promise((resolve) => child.on('close', resolve));
    while (!stderr.includes('step 2')) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGINT');
    const code = await closed;
    expect(code).toBe(130);
    expect(stderr).toContain(`continue with: npx rein resume ${runDir}`);
    const resumed = await runCli(['resume', runDir], { env: cleanEnv({ OPENAI_BASE_URL: stub.url }) });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(comparable(readRecord(join(runDir, 'record.jsonl')))).toEqual(comparable(reference));
    const trace = readFileSync(tracePath, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { i: number; kind: string });
    expect(trace.filter((line) => ['start', 'resume', 'end'].includes(line.kind)).map((line) => line.kind)).toEqual(['start', 'resume', 'end']);
    expect(trace.map((line) => line.i)).toEqual(trace.map((_, index) => index));
    expect(existsSync(join(runDir, 'trace.jsonl'))).toBe(false);
  });

  it('a run killed with SIGKILL at random moments resumes to the same final record, no step lost or repeated', async () => {
    let resumedMidRun = 0;
    // Kill points follow the run, not the clock, so a loaded machine still lands them mid-run:
    // after a random number of model replies, plus a random moment into the next step.
    const kills = 6;
    for (let index = 0; index < kills; index++) {
      const afterReplies = index;
      const extraMs = Math.floor(Math.random() * 150);
      const delay = `${afterReplies} replies + ${extraMs} ms`;
      const ws = workspace();
      const runDir = join(makeTempDir('rein-resume-'), 'run');
      const child = spawn(
        process.execPath,
        [reinBin, 'run', ws, 'Make node check.js pass', '--test-cmd', 'node check.js', '--model', 'stub', '--run-dir', runDir],
        { env: cleanEnv({ OPENAI_BASE_URL: stub.url }), stdio: 'ignore' },
      );
      // Listen before killing: a run that already finished has already closed.
      let exited = false;
      const closed = new Promise((resolve) =>
        child.on('close', () => {
          exited = true;
          resolve(undefined);
        }),
      );
      while (!exited && modelReplies(join(runDir, 'trace.jsonl')) < afterReplies) await new Promise((resolve) => setTimeout(resolve, 10));
      await new Promise((resolve) => setTimeout(resolve, extraMs));
      child.kill('SIGKILL');
      await closed;
      if (!existsSync(join(runDir, 'run.json'))) continue; // killed before the run directory existed: nothing to resume
      const savedState = existsSync(join(runDir, 'state.json'));
      const resumed = await runCli(['resume', runDir], { env: cleanEnv({ OPENAI_BASE_URL: stub.url }) });
      const ended = resumed.code === 0 || /already ended \(done\)/.test(resumed.stderr);
      expect(ended, `kill after ${delay}: ${resumed.stderr.split('\n').slice(-6).join('\n')}`).toBe(true);
      const record = readRecord(join(runDir, 'record.jsonl'));
      expect(comparable(record), `kill after ${delay}`).toEqual(comparable(reference));
      expect(checkPairing(record), `kill after ${delay}`).toEqual([]);
      expect(readFileSync(join(ws, 'count.js'), 'utf8')).toContain('return items.length;');
      const trace = readFileSync(join(runDir, 'trace.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { i: number; kind: string });
      expect(trace.map((line) => line.i)).toEqual(trace.map((_, index) => index));
      expect(trace.filter((line) => line.kind === 'tool' && (line as { name?: string }).name === 'edit_file')).toHaveLength(2);
      if (savedState && trace.some((line) => line.kind === 'resume')) resumedMidRun++;
    }
    // Most kill points must land inside the run, or the test proves nothing.
    expect(resumedMidRun).toBeGreaterThanOrEqual(4);
  }, 300_000);

  it('a command cut short by a stop (SIGTERM here) is not run again on resume: the agent is told it was interrupted', async () => {
    const slow = await startOpenAIStub((request) => {
      const results = request.messages.filter((message) => message.role === 'tool');
      const act = (name: string, args: unknown) => ({ toolCalls: [{ id: `call_${request.messages.length}`, name, arguments: args }] });
      if (results.length === 0) return act('run', { command: 'echo ran >> ran.txt; sleep 20' });
      if (results.length === 1) return act('run', { command: 'node check.js' });
      return act('finish', { summary: 'checked' });
    });
    try {
      const ws = workspace();
      writeFileSync(join(ws, 'count.js'), 'export function count(items) {\n  return items.length;\n}\n');
      const runDir = join(makeTempDir('rein-interrupt-'), 'run');
      const env = cleanEnv({ OPENAI_BASE_URL: slow.url });
      const child = spawn(
        process.execPath,
        [reinBin, 'run', ws, 'Make node check.js pass', '--test-cmd', 'node check.js', '--model', 'stub', '--run-dir', runDir],
        { env, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr!.on('data', (chunk) => {
        stderr += chunk;
      });
      const closed = new Promise((resolve) => child.on('close', resolve));
      while (!existsSync(join(ws, 'ran.txt'))) await new Promise((resolve) => setTimeout(resolve, 20));
      // A supervisor's SIGTERM stops the run like Ctrl+C, and exits as a shell reports that signal.
      child.kill('SIGTERM');
      expect(await closed).toBe(143);
      expect(stderr).toContain(`continue with: npx rein resume ${runDir}`);
      expect(stderr).not.toMatch(/exit null|exit=aborted/);
      // No OPENAI_BASE_URL now: the run directory remembers the endpoint it started with.
      const resumed = await runCli(['resume', runDir], { env: cleanEnv() });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toContain('run echo ran >> ran.txt; sleep 20 → interrupted by the stop, not run again');
      expect(readFileSync(join(ws, 'ran.txt'), 'utf8')).toBe('ran\n');
      const toolResults = readRecord(join(runDir, 'record.jsonl'))
        .filter((message) => message.role === 'tool')
        .map((message) => String(message.content));
      expect(toolResults[0]).toMatch(/^exit=interrupted\nNot run again/);
      expect(toolResults[1]).toMatch(/^exit=0\nPASS/);
      const toolLines = readFileSync(join(runDir, 'trace.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { kind: string })
        .filter((line) => line.kind === 'tool');
      expect(toolLines).toHaveLength(2);
    } finally {
      await slow.close();
    }
  }, 60_000);
});
