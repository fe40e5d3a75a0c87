import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createActor, toPromise } from 'xstate';
import { createToolRunner } from '../../actors/tool-runner.js';
import type { ToolCall } from '../../context/messages.js';
import type { ToolsInput } from '../../machines/actor-contracts.js';
import { openCallJournal } from '../../run/record/call-journal.js';
import { defaultTools } from '../../tools/index.js';
import { INTERRUPTED_TEXT } from '../../tools/run.js';
import { makeContext, makeTempDir, writeFiles } from '../helpers/workspace.js';

const call = (name: string, args: unknown, id = 'call_1'): ToolCall => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } });
const input = (calls: ToolCall[]): ToolsInput => ({ calls, allowed: 'all', phase: 'build', step: 1, offset: 0 });

function runner(root: string, journalPath: string) {
  const { signal: _unused, ...toolContext } = makeContext(root);
  const journal = openCallJournal(journalPath);
  return { journal, logic: createToolRunner({ tools: defaultTools, toolContext, journal }) };
}

describe('the tool actor and its journal', () => {
  it('reuses a journaled result instead of running the call again', async () => {
    const root = makeTempDir();
    const journalPath = path.join(makeTempDir(), 'calls.jsonl');
    const calls = [call('run', { command: 'echo ran >> log.txt; echo hi' })];
    const first = runner(root, journalPath);
    const before = await toPromise(createActor(first.logic, { input: input(calls) }).start());
    first.journal.close();
    const second = runner(root, journalPath);
    const again = await toPromise(createActor(second.logic, { input: input(calls) }).start());
    second.journal.close();
    expect(again.results).toEqual(before.results);
    expect(fs.readFileSync(path.join(root, 'log.txt'), 'utf8')).toBe('ran\n');
  });

  it('a command the stopped run had started is reported as interrupted, not run a second time', async () => {
    const root = makeTempDir();
    const journalPath = path.join(makeTempDir(), 'calls.jsonl');
    fs.writeFileSync(journalPath, `${JSON.stringify({ key: '1:0', started: true })}\n`);
    const { journal, logic } = runner(root, journalPath);
    const output = await toPromise(createActor(logic, { input: input([call('run', { command: 'echo ran >> log.txt' })]) }).start());
    journal.close();
    expect(output.results[0]!.outcome).toEqual({
      content: INTERRUPTED_TEXT,
      ok: false,
      effect: { kind: 'command', command: 'echo ran >> log.txt', exitCode: null, timedOut: false, blocked: false, interrupted: true },
    });
    expect(fs.existsSync(path.join(root, 'log.txt'))).toBe(false);
  });

  it('an interrupted read runs again: it changes nothing', async () => {
    const root = makeTempDir();
    writeFiles(root, { 'a.txt': 'alpha\n' });
    const journalPath = path.join(makeTempDir(), 'calls.jsonl');
    fs.writeFileSync(journalPath, `${JSON.stringify({ key: '1:0', started: true })}\n`);
    const { journal, logic } = runner(root, journalPath);
    const output = await toPromise(createActor(logic, { input: input([call('read_file', { path: 'a.txt' })]) }).start());
    journal.close();
    // The same outcome as a read that was never interrupted (not the interrupted-command report), and the file is as it was.
    const fresh = runner(root, path.join(makeTempDir(), 'calls.jsonl'));
    const expected = await toPromise(createActor(fresh.logic, { input: input([call('read_file', { path: 'a.txt' })]) }).start());
    fresh.journal.close();
    expect(output.results[0]!.outcome).toEqual(expected.results[0]!.outcome);
    expect(output.results[0]!.outcome).toMatchObject({ ok: true, effect: { kind: 'read', path: 'a.txt' } });
    expect(output.results[0]!.outcome.content).toBe('[a.txt: lines 1-1 of 1; 0 above, 0 below]\n    1  alpha');
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('alpha\n');
  });

  it('a call cut short by stopping the actor leaves no result in the journal, only its start', async () => {
    const root = makeTempDir();
    const journalPath = path.join(makeTempDir(), 'calls.jsonl');
    const { journal, logic } = runner(root, journalPath);
    const actor = createActor(logic, { input: input([call('run', { command: 'echo started > started.txt; sleep 20' })]) }).start();
    const startedFile = path.join(root, 'started.txt');
    while (!fs.existsSync(startedFile)) await new Promise((resolve) => setTimeout(resolve, 10));
    actor.stop();
    // The aborted command returns once its process group is gone; give it the moment it needs.
    await new Promise((resolve) => setTimeout(resolve, 500));
    journal.close();
    const lines = fs
      .readFileSync(journalPath, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([{ key: '1:0', started: true }]);
  });
});

describe('the tool actor and secrets in results', () => {
  it('masks well-known secret formats and the endpoint key before the journal, and reports kinds and positions only', async () => {
    const root = makeTempDir();
    const token = ['glpat-', 'xY9zT3mK8pQ2wE5rV7nB'].join('');
    writeFiles(root, { 'deploy.cfg': `url = https://example.com\ntoken = ${token}\nkey = sk-endpoint-key-0123456789\n` });
    const { signal: _unused, ...toolContext } = makeContext(root);
    const journal = openCallJournal(path.join(makeTempDir(), 'calls.jsonl'));
    const notes: unknown[] = [];
    const logic = createToolRunner({
      tools: defaultTools,
      toolContext,
      journal,
      secrets: ['sk-endpoint-key-0123456789'],
      onSecretsMasked: (findings, made, step) => notes.push({ findings, made, step }),
    });
    const output = await toPromise(createActor(logic, { input: input([call('read_file', { path: 'deploy.cfg' })]) }).start());
    expect(output.results[0]!.outcome.content).toBe(
      '[deploy.cfg: lines 1-3 of 3; 0 above, 0 below]\n    1  url = https://example.com\n    2  token = [redacted: gitlab-token]\n    3  key = [redacted]',
    );
    expect(journal.get('1:0')!.outcome.content).not.toContain(token);
    expect(notes).toEqual([
      {
        findings: [
          { kind: 'gitlab-token', line: 3, column: 16 },
          { kind: 'endpoint-key', line: 4, column: 14 },
        ],
        made: { id: 'call_1', name: 'read_file' },
        step: 1,
      },
    ]);
    journal.close();
  });
});

describe("the phase's tool list, finish included", () => {
  const inPhase = (calls: ToolCall[], allowed: ToolsInput['allowed']): ToolsInput => ({ calls, allowed, phase: 'plan', step: 1, offset: 0 });
  const run = async (calls: ToolCall[], allowed: ToolsInput['allowed']) => {
    const { signal: _unused, ...toolContext } = makeContext(makeTempDir());
    return toPromise(createActor(createToolRunner({ tools: defaultTools, toolContext }), { input: inPhase(calls, allowed) }).start());
  };

  it('a phase that leaves finish out refuses it as an observation naming the phase and what it allows; the gate never sees it', async () => {
    const output = await run([call('finish', { summary: 'done' })], ['read_file', 'grep']);
    expect(output.finish).toBeNull();
    expect(output.results.map((result) => result.outcome.content)).toEqual([
      'Tool error: finish is not allowed in the plan phase. Allowed here: read_file, grep.',
    ]);
    // The look-alike: a phase that lists finish stops at it for the gate, as before.
    const allowed = await run([call('finish', { summary: 'done' })], ['read_file', 'finish']);
    expect(allowed.finish).toEqual({ summary: 'done' });
    expect(allowed.results).toEqual([]);
  });

  it('a glob in the tool list allows every tool it matches, and only those', async () => {
    const output = await run([call('read_file', { path: 'missing.txt' }), call('run', { command: 'true' }, 'call_2')], ['read_*', 'gr?p']);
    expect(output.results[0]!.outcome.content).not.toMatch(/not allowed/);
    expect(output.results[1]!.outcome.content).toBe('Tool error: run is not allowed in the plan phase. Allowed here: read_file, grep.');
  });
});

describe('tools.maxCallsPerReply', () => {
  it('counts calls from the start of the reply, also when its calls run in parts (approvals), and runs none past the cap', async () => {
    const root = makeTempDir();
    const { signal: _unused, ...toolContext } = makeContext(root);
    const logic = createToolRunner({ tools: defaultTools, toolContext, maxCallsPerReply: 2 });
    const calls = ['a', 'b'].map((name, index) => call('run', { command: `echo ${name} >> log.txt` }, `call_${index}`));
    // The second part of a reply whose first call already ran: one more may run.
    const output = await toPromise(createActor(logic, { input: { ...input(calls), offset: 1 } }).start());
    expect(fs.readFileSync(path.join(root, 'log.txt'), 'utf8')).toBe('a\n');
    expect(output.results[1]!.outcome.ok).toBe(false);
    expect(output.results[1]!.outcome.content).toMatch(/^Not run: one reply may make at most 2 tool calls \(tools\.maxCallsPerReply\), and this was call 3\./);
  });
});
