import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type OpenAIStub, type StubAnswer, startOpenAIStub } from '../../testing/index.js';
import { makeTempDir } from '../../testing/temp-dir.js';
import { cleanEnv, reinBin, runCli } from '../helpers/cli.js';
import { commandLine, processesWithArgument, uniqueMarker } from '../helpers/processes.js';
import { waitUntil } from '../helpers/wait.js';

type Call = { name: string; arguments: Record<string, unknown> };

function traceLines(runDir: string): Array<Record<string, unknown>> {
  return readFileSync(join(runDir, 'trace.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const SERVER = "node -e \"require('http').createServer((q, s) => s.end('pong ' + q.url)).listen(8765, '127.0.0.1', () => console.log('listening'))\"";
const CLIENT =
  'node -e "fetch(\'http://127.0.0.1:8765/health\').then((r) => r.text()).then(console.log, (e) => { console.log(e.cause?.code ?? e.message); process.exit(1); })"';

describe('background jobs through rein run', () => {
  let stub: OpenAIStub | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  it('a dev server started with a trailing & answers later commands in the same sandbox, its output is read by id, and the run ends it', async () => {
    const calls: Call[] = [
      { name: 'run', arguments: { command: `${SERVER} &` } },
      { name: 'job', arguments: { id: '1', wait: 0 } },
      { name: 'run', arguments: { command: CLIENT } },
      { name: 'run', arguments: { command: 'true' } },
    ];
    stub = await startOpenAIStub((request): StubAnswer => {
      const done = request.messages.filter((message) => message.role === 'tool').length;
      // Poll until the server says it is listening, as an agent would.
      if (done === 2 && !/listening/.test(JSON.stringify(request.messages)))
        return { toolCalls: [{ id: `c${done}`, name: 'job', arguments: { id: '1', wait: 1 } }] };
      const call = calls[Math.min(done, calls.length - 1)]!;
      if (done >= calls.length) return { toolCalls: [{ id: `c${done}`, name: 'finish', arguments: { summary: 'server checked' } }] };
      return { toolCalls: [{ id: `c${done}`, name: call.name, arguments: call.arguments }] };
    });
    const repo = makeTempDir('rein-e2e-jobs-', { until: 'exit' });
    const runDir = join(repo, '.rein', 'runs', 'jobs');
    const result = await runCli(['run', repo, 'Start the server and check it answers', '--test-cmd', 'true', '--model', 'stub', '--run-dir', runDir], {
      env: cleanEnv({ OPENAI_BASE_URL: stub.url }),
    });
    expect(result.code, result.stderr).toBe(0);
    const tools = traceLines(runDir).filter((line) => line.kind === 'tool');
    expect(tools[0]).toMatchObject({ name: 'run', effect: { kind: 'job', action: 'start', id: '1', state: 'running' } });
    const client = tools.find((line) => (line.args as { command?: string }).command === CLIENT)!;
    expect(client.result).toBe('exit=0\npong /health\n');
    const jobs = traceLines(runDir).filter((line) => line.kind === 'job');
    expect(jobs.map((line) => [line.id, line.state, line.cause ?? null])).toEqual([
      ['1', 'running', null],
      ['1', 'stopped', 'the run ended'],
    ]);
    expect(readFileSync(jobs[0]!.log as string, 'utf8')).toBe('listening\n');
  }, 180_000);

  it('jobs die with a harness killed by SIGKILL, and the resumed run tells the agent and the trace which ones', async () => {
    const marker = uniqueMarker();
    stub = await startOpenAIStub((request): StubAnswer => {
      const done = request.messages.filter((message) => message.role === 'tool').length;
      if (done === 0) return { toolCalls: [{ id: 'c0', name: 'run', arguments: { command: `sleep ${marker}`, background: true } }] };
      if (done === 1) return { toolCalls: [{ id: 'c1', name: 'run', arguments: { command: `sleep ${marker}1` } }] };
      if (done === 2) return { toolCalls: [{ id: 'c2', name: 'run', arguments: { command: 'true' } }] };
      return { toolCalls: [{ id: 'c3', name: 'finish', arguments: { summary: 'resumed' } }] };
    });
    const repo = makeTempDir('rein-e2e-jobs-', { until: 'exit' });
    const runDir = join(repo, '.rein', 'runs', 'killed');
    const env = cleanEnv({ OPENAI_BASE_URL: stub.url });
    const cli = spawn(process.execPath, [reinBin, 'run', repo, 'task', '--test-cmd', 'true', '--model', 'stub', '--run-dir', runDir], {
      env,
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => cli.once('exit', resolve));
    const sleeping = (suffix: string) => processesWithArgument(marker).filter((pid) => commandLine(pid) === `sleep\0${marker}${suffix}\0`);
    await waitUntil(() => sleeping('').length === 1 && sleeping('1').length === 1, 'the job and the command to run', 60_000);
    cli.kill('SIGKILL');
    await exited;
    await waitUntil(() => processesWithArgument(marker).length === 0, 'the job and the command to die', 10_000).catch(() => undefined);
    expect(processesWithArgument(marker)).toEqual([]);

    const resumed = await runCli(['resume', runDir], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    // The first request after the resume: the cut-short command is reported, then the jobs that went with rein.
    const afterResume = stub.requests.find((request) =>
      request.messages.some((message) => message.role === 'tool' && String(message.content).startsWith('exit=interrupted')),
    )!;
    expect(afterResume.messages.slice(-2).map((message) => [message.role, String(message.content).split('\n')[0]])).toEqual([
      ['tool', 'exit=interrupted'],
      ['user', expect.stringMatching(/^\[harness\] Background jobs you started are gone: rein was stopped, and they stopped with it: job 1 \(sleep /)],
    ]);
    const lost = traceLines(runDir).filter((line) => line.kind === 'job' && line.state === 'lost');
    expect(lost).toMatchObject([{ id: '1', command: `sleep ${marker}` }]);
  }, 180_000);
});
