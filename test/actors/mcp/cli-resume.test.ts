import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type OpenAIStub, type StubRequest, startOpenAIStub } from '../../../testing/index.js';
import { cleanEnv, reinBin, runCli } from '../../helpers/cli.js';
import { waitUntil } from '../../helpers/wait.js';
import { makeTempDir } from '../../helpers/workspace.js';
import { EVERYTHING } from './mcp-fixtures.js';

/** Starts a 30-second MCP operation; after a resume, runs the tests and finishes. */
function policy(request: StubRequest) {
  const results = request.messages.filter((message) => message.role === 'tool');
  if (results.length === 0) return { toolCalls: [{ name: 'mcp__every__trigger-long-running-operation', arguments: { duration: 30, steps: 30 } }] };
  if (results.length === 1) return { toolCalls: [{ name: 'run', arguments: { command: 'true' } }] };
  return { toolCalls: [{ name: 'finish', arguments: { summary: 'done' } }] };
}

describe('rein killed with SIGKILL during an MCP call', () => {
  let stub: OpenAIStub | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  it('resumes with the call reported as interrupted, never sent again', async () => {
    stub = await startOpenAIStub(policy);
    const repo = makeTempDir('rein-mcp-kill-');
    const runDir = join(makeTempDir('rein-mcp-kill-run-'), 'run');
    writeFileSync(join(repo, 'rein.config.json'), JSON.stringify({ mcp: { servers: { every: { command: process.execPath, args: [EVERYTHING, 'stdio'] } } } }));
    const env = cleanEnv({ OPENAI_BASE_URL: stub.url, XDG_STATE_HOME: makeTempDir('rein-state-') });
    expect((await runCli(['trust', repo], { env })).code).toBe(0);
    const args = ['run', repo, 'Wait for the operation', '--test-cmd', 'true', '--model', 'stub-model', '--run-dir', runDir];
    const rein = spawn(process.execPath, [reinBin, ...args], { cwd: repo, env, stdio: 'ignore' });
    const journal = join(runDir, 'calls.jsonl');
    // The step is saved (state.json) and the call noted as started in the journal: the 30-second operation is under way.
    await waitUntil(
      () => existsSync(join(runDir, 'state.json')) && existsSync(journal) && readFileSync(journal, 'utf8').includes('"started"'),
      'the MCP call to start',
      30_000,
    );
    rein.kill('SIGKILL');
    await new Promise((resolve) => rein.once('close', resolve));
    const calls = stub.requests.length;
    const resumedAt = Date.now();
    const resumed = await runCli(['resume', runDir, '--json'], { env, cwd: repo });
    // Sent again, the operation would hold the run for 30 seconds.
    expect(Date.now() - resumedAt).toBeLessThan(25_000);
    expect(resumed.code, resumed.stderr).toBe(0);
    // The first request after the resume carries the interrupted call's result; the operation did not run again.
    // The first tool result the model gets after the resume is the interrupted call's.
    const after = stub.requests.slice(calls).find((request) => request.messages.at(-1)?.role === 'tool')!;
    const result = String(after.messages.at(-1)!.content);
    expect(result).toMatch(/^Tool error: this mcp__every__trigger-long-running-operation call was under way when rein was stopped, and it is not sent again/);
    const trace = readFileSync(join(runDir, 'trace.jsonl'), 'utf8');
    expect(trace).not.toContain('Long running operation completed');
  }, 60_000);
});
