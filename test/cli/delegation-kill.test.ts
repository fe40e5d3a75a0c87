import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TraceRecord } from '../../lib/trace/trace-events.js';
import { readJsonLines } from '../../run/record/jsonl.js';
import { type OpenAIStub, type StubAnswer, type StubRequest, startOpenAIStub } from '../../testing/index.js';
import { cleanEnv, reinBin, runCli } from '../helpers/cli.js';
import { waitUntil } from '../helpers/wait.js';
import { makeTempDir } from '../helpers/workspace.js';

const traceOf = (runDir: string) => (existsSync(join(runDir, 'trace.jsonl')) ? readJsonLines<TraceRecord>(join(runDir, 'trace.jsonl')).values : []);

/**
 * The parent delegates once and finishes with its child's report; the child appends to log.txt twice, by commands,
 * then finishes. `hold` makes the child's request after its first command hang: the process is killed there.
 */
function policy(state: { hold: boolean }) {
  return (request: StubRequest): StubAnswer => {
    const results = request.messages.filter((message) => message.role === 'tool').length;
    if (request.model === 'child-model') {
      if (results === 0) return { toolCalls: [{ name: 'run', arguments: { command: 'echo one >> log.txt' } }] };
      if (results === 1) return state.hold ? { hang: true } : { toolCalls: [{ name: 'run', arguments: { command: 'echo two >> log.txt' } }] };
      return { toolCalls: [{ name: 'finish', arguments: { summary: 'wrote one and two' } }] };
    }
    if (results === 0) return { toolCalls: [{ name: 'delegate', arguments: { tasks: [{ agent: 'writer', task: 'Write the log.' }] } }] };
    return { toolCalls: [{ name: 'finish', arguments: { summary: 'the writer is done' } }] };
  };
}

describe('kill -9 while a child runs, then rein resume (a real process)', () => {
  let stub: OpenAIStub | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  it('continues the child where it was, then the parent; no command runs twice; the child’s old state migrates', { timeout: 120_000 }, async () => {
    const state = { hold: true };
    stub = await startOpenAIStub(policy(state));
    const repo = makeTempDir('rein-kill-child-');
    writeFileSync(join(repo, 'README.md'), 'a repo\n');
    const config = join(makeTempDir('rein-config-'), 'rules.json');
    writeFileSync(
      config,
      JSON.stringify({
        agents: { writer: { description: 'Writes the log', tools: ['run'], model: 'child-model', budget: { share: 0.5 } } },
        verification: { gate: false },
      }),
    );
    const runDir = join(makeTempDir('rein-run-'), 'run');
    const childDir = join(runDir, 'agents', '1-0-0-writer');
    const env = cleanEnv({ OPENAI_BASE_URL: stub.url });
    const first = spawn(
      process.execPath,
      [reinBin, 'run', repo, 'Have the log written', '--test-cmd', 'true', '--model', 'parent-model', '--config', config, '--run-dir', runDir],
      { env, stdio: 'ignore' },
    );
    const closed = new Promise((resolve) => first.on('close', resolve));
    // Mid-child: its first command ran and was saved, its next model request is waiting.
    await waitUntil(() => stub!.requests.filter((request) => request.model === 'child-model').length >= 2, 'the child asked for its second step', 60_000);
    await waitUntil(() => traceOf(childDir).some((line) => line.kind === 'tool' && line.name === 'run'), 'the child ran its first command');
    first.kill('SIGKILL');
    await closed;
    expect(readFileSync(join(repo, 'log.txt'), 'utf8')).toBe('one\n');
    expect(traceOf(runDir).some((line) => line.kind === 'end')).toBe(false);

    // The child's saved state, written back in format 3 (before previousPhase and heldResults): it migrates like a run's.
    const statePath = join(childDir, 'state.json');
    const saved = JSON.parse(readFileSync(statePath, 'utf8')) as { version: number; snapshot: { context: Record<string, unknown> } };
    expect(saved.version).toBe(4);
    delete saved.snapshot.context.previousPhase;
    delete saved.snapshot.context.heldResults;
    writeFileSync(statePath, JSON.stringify({ ...saved, version: 3 }));

    state.hold = false;
    const resumed = await runCli(['resume', runDir, '--json'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    // Each command ran once: the first before the kill, the second after.
    expect(readFileSync(join(repo, 'log.txt'), 'utf8')).toBe('one\ntwo\n');
    const child = traceOf(childDir);
    expect(child.filter((line) => line.kind === 'tool' && line.name === 'run')).toHaveLength(2);
    expect(child.filter((line) => ['start', 'resume', 'end'].includes(line.kind)).map((line) => line.kind)).toEqual(['start', 'resume', 'end']);
    expect((JSON.parse(readFileSync(statePath, 'utf8')) as { version: number }).version).toBe(4);
    // The parent: the child resumed and ended inside the same delegate call, then the parent finished.
    const parent = traceOf(runDir);
    const agentEvents = parent.filter((line) => line.kind === 'agent').map((line) => line.event);
    expect(agentEvents[0]).toBe('start');
    expect(agentEvents.slice(-2)).toEqual(['resume', 'end']);
    const delegates = parent.filter((line) => line.kind === 'tool' && line.name === 'delegate');
    expect(delegates).toHaveLength(1);
    expect(delegates[0]!.result).toContain('wrote one and two');
    expect(parent.findIndex((line) => line.kind === 'end')).toBeGreaterThan(parent.indexOf(delegates[0]!));
    const summary = JSON.parse(resumed.stdout.trim().split('\n').at(-1)!);
    expect(summary.status).toBe('done');
    expect(summary.agents.find((entry: { agent: string }) => entry.agent === 'writer')).toMatchObject({ runs: 1, steps: 3 });
    // The parent's model was asked twice in all (the delegate, the finish): it did not re-decide the call.
    expect(stub.requests.filter((request) => request.model === 'parent-model')).toHaveLength(2);
  });
});

describe('kill -9 while a child’s command runs', () => {
  let stub: OpenAIStub | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  it('the command is not run again on resume: the child is told it was cut short, and goes on', { timeout: 120_000 }, async () => {
    stub = await startOpenAIStub((request) => {
      const results = request.messages.filter((message) => message.role === 'tool').length;
      if (request.model === 'child-model')
        return results === 0
          ? { toolCalls: [{ name: 'run', arguments: { command: 'echo started >> log.txt; sleep 3' } }] }
          : { toolCalls: [{ name: 'finish', arguments: { summary: 'the command was cut short' } }] };
      if (results === 0) return { toolCalls: [{ name: 'delegate', arguments: { tasks: [{ agent: 'writer', task: 'Write the log.' }] } }] };
      return { toolCalls: [{ name: 'finish', arguments: { summary: 'done' } }] };
    });
    const repo = makeTempDir('rein-kill-cmd-');
    writeFileSync(join(repo, 'README.md'), 'a repo\n');
    const config = join(makeTempDir('rein-config-'), 'rules.json');
    writeFileSync(
      config,
      JSON.stringify({ agents: { writer: { description: 'Writes', tools: ['run'], model: 'child-model' } }, verification: { gate: false } }),
    );
    const runDir = join(makeTempDir('rein-run-'), 'run');
    const env = cleanEnv({ OPENAI_BASE_URL: stub.url });
    const first = spawn(
      process.execPath,
      [reinBin, 'run', repo, 'Have the log written', '--test-cmd', 'true', '--model', 'parent-model', '--config', config, '--run-dir', runDir],
      { env, stdio: 'ignore' },
    );
    const closed = new Promise((resolve) => first.on('close', resolve));
    await waitUntil(() => existsSync(join(repo, 'log.txt')), 'the child’s command started', 60_000);
    first.kill('SIGKILL');
    await closed;
    // Whatever the killed command's own process does, it never starts again.
    await new Promise((resolve) => setTimeout(resolve, 3500));
    const resumed = await runCli(['resume', runDir, '--json'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(readFileSync(join(repo, 'log.txt'), 'utf8')).toBe('started\n');
    const childDir = join(runDir, 'agents', '1-0-0-writer');
    const runs = traceOf(childDir).filter((line) => line.kind === 'tool' && line.name === 'run');
    expect(runs).toHaveLength(1);
    expect(runs[0]!.result).toContain('Not run again: rein was stopped while this command was running');
    expect(runs[0]!.effect).toMatchObject({ kind: 'command', interrupted: true });
    expect(JSON.parse(resumed.stdout.trim().split('\n').at(-1)!).status).toBe('done');
  });
});
