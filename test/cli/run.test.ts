import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type OpenAIStub, type StubRequest, startOpenAIStub } from '../../testing/index.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

const SECRET = 'sk-test-0123456789abcdefSECRET';

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function buggyRepo(): string {
  const repo = makeTempDir('rein-e2e-');
  writeFileSync(join(repo, 'add.js'), 'export function add(a, b) {\n  return a - b;\n}\n');
  writeFileSync(
    join(repo, 'add.test.js'),
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from './add.js';\ntest('adds', () => assert.equal(add(2, 3), 5));\n",
  );
  return repo;
}

/** A tiny policy standing in for a model: it reacts to what the harness sent back. */
function agentPolicy(request: StubRequest) {
  const last = request.messages.at(-1)!;
  const text = typeof last.content === 'string' ? last.content : '';
  if (last.role === 'user' && !request.messages.some((message) => message.role === 'tool'))
    return { toolCalls: [{ name: 'read_file', arguments: { path: 'add.js' } }] };
  if (text.startsWith('[add.js')) return { toolCalls: [{ name: 'edit_file', arguments: { path: 'add.js', old: 'a - b', new: 'a + b' } }] };
  if (text.startsWith('Edit applied') || text.startsWith('Not yet'))
    return { content: 'Running the tests.', toolCalls: [{ name: 'run', arguments: { command: 'node --test' } }] };
  if (text.startsWith('exit=0')) return { toolCalls: [{ name: 'finish', arguments: { summary: 'add() now adds.' } }] };
  return { content: `unexpected: ${text.slice(0, 80)}` };
}

describe('rein run as a child process against a local OpenAI-compatible server', () => {
  let stub: OpenAIStub | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  it('fixes a failing test over HTTP with the real openai SDK and exits 0', async () => {
    stub = await startOpenAIStub(agentPolicy);
    const repo = buggyRepo();
    const result = await runCli(['run', repo, 'Fix the failing test in add.test.js', '--test-cmd', 'node --test', '--model', 'stub-model', '--json'], {
      env: cleanEnv({ OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: SECRET }),
    });
    expect(result.stderr).toContain('rein: done');
    expect(result.code).toBe(0);
    expect(readFileSync(join(repo, 'add.js'), 'utf8')).toContain('a + b');
    // Not a git repository: said at the start (undo and diffs need git); in one, nothing is said.
    expect(result.stderr).toContain('is not in a git repository; undo and diffs');
    execFileSync('git', ['init', '-q'], { cwd: repo });
    const inGit = await runCli(['run', repo, 'Fix it', '--test-cmd', 'node --test', '--model', 'stub-model', '--json', '--max-steps', '1'], {
      env: cleanEnv({ OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: SECRET }),
    });
    expect(inGit.stderr).toContain('rein: running');
    expect(inGit.stderr).not.toContain('git repository');
    const summary = JSON.parse(result.stdout.trim().split('\n').at(-1)!);
    expect(summary).toMatchObject({ status: 'done', steps: 4, summary: 'add() now adds.' });
    expect(summary.usage.promptTokens).toBe(400);
    // The SDK sent the fixed tool schemas and the key as a bearer token; the trace never holds the key.
    const names = (stub.requests[0]!.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    expect(names).toEqual(['read_file', 'grep', 'edit_file', 'run', 'update_todo', 'finish', 'job']);
    expect(new Set(stub.requests.map((request) => JSON.stringify(request.tools))).size).toBe(1);
    expect(stub.requests[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
    const trace = readFileSync(summary.trace, 'utf8');
    expect(trace).not.toContain(SECRET);
    expect(trace).toContain('"kind":"end"');
  });

  it("a flag's value replaces the rules file's, but neither a good nor a bad flag hides a bad file: both are reported", async () => {
    const repo = buggyRepo();
    const badRules = join(makeTempDir('rein-rules-'), 'bad-steps.json');
    writeFileSync(badRules, '{ "budgets": { "maxSteps": -3 } }');
    const fileError = 'bad-steps.json: budgets.maxSteps: expected number to be >0, found -3';
    const endpointEnv = cleanEnv({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    for (const steps of ['5', 'abc']) {
      const both = await runCli(['run', repo, 'task', '--test-cmd', 'x', '--model', 'm', '--config', badRules, '--max-steps', steps], { env: endpointEnv });
      expect(both.code, steps).toBe(2);
      expect(both.stderr, steps).toContain(fileError);
      if (steps === 'abc') expect(both.stderr).toContain('--max-steps expects a positive whole number, got "abc"');
    }
    const flagAlone = await runCli(['run', repo, 'task', '--test-cmd', 'x', '--model', 'm', '--max-steps', 'abc'], { env: endpointEnv });
    expect(flagAlone.stderr.trim()).toBe('rein run: --max-steps expects a positive whole number, got "abc"');
  }, 90_000);

  it('says in one line what is missing: repo, model, endpoint, test command, a price for a cost cap', async () => {
    const repo = buggyRepo();
    const missingRepo = await runCli(['run', join(repo, 'nope'), 'task', '--test-cmd', 'x', '--model', 'm'], {
      env: cleanEnv({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }),
    });
    expect(missingRepo).toMatchObject({ code: 2 });
    expect(missingRepo.stderr).toMatch(/repo not found/);
    const noModel = await runCli(['run', repo, 'task', '--test-cmd', 'x'], { env: cleanEnv({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }) });
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toMatch(/no model: pass --model/);
    // A misspelt option or command gets the nearest one.
    expect((await runCli(['run', repo, 'task', '--max-step', '3'], { env: cleanEnv() })).stderr).toContain('(did you mean "--max-steps"?)');
    expect((await runCli(['rnu'], { env: cleanEnv() })).stderr).toContain('rein: unknown command "rnu" (did you mean "run"?)');
    const noEndpoint = await runCli(['run', repo, 'task', '--test-cmd', 'x', '--model', 'm'], { env: cleanEnv() });
    expect(noEndpoint.code).toBe(2);
    expect(noEndpoint.stderr).toMatch(/no endpoint: set OPENAI_BASE_URL/);
    const noTest = await runCli(['run', repo, 'task', '--model', 'm'], { env: cleanEnv({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }) });
    expect(noTest.code).toBe(2);
    expect(noTest.stderr).toMatch(/no verification command/);
    const unpricedCap = await runCli(['run', repo, 'task', '--test-cmd', 'x', '--model', 'm', '--max-cost', '0.5'], {
      env: cleanEnv({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }),
    });
    expect(unpricedCap.code).toBe(2);
    expect(unpricedCap.stderr).toMatch(/--max-cost needs a price for model "m"/);
    // One CLI run per missing thing: a minute on a loaded machine.
  }, 60_000);

  it('an unreachable endpoint is one clear line and exit code 3', async () => {
    const repo = buggyRepo();
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const result = await runCli(['run', repo, 'task', '--test-cmd', 'x', '--model', 'm'], { env: cleanEnv({ OPENAI_BASE_URL: url }) });
    expect(result.code).toBe(3);
    expect(result.stderr.trim()).toBe(
      `rein: cannot reach the model endpoint at ${url} (ECONNREFUSED): check the base URL (--base-url or OPENAI_BASE_URL) and that a server is running and listening there`,
    );
  });

  it('an endpoint that keeps failing: retried and traced, then status failed, exit 3, a clear message, the trace intact', async () => {
    stub = await startOpenAIStub(() => ({ status: 503, body: '{"error":{"message":"overloaded"}}', headers: { 'retry-after': '0' } }));
    const repo = buggyRepo();
    const runDir = join(makeTempDir('rein-run-'), 'run');
    const result = await runCli(['run', repo, 'task', '--test-cmd', 'node --test', '--model', 'm', '--run-dir', runDir, '--json'], {
      env: cleanEnv({ OPENAI_BASE_URL: stub.url }),
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/rein: failed after 0\/40 steps/);
    expect(result.stderr).toMatch(/reason: ModelEndpointError: model endpoint failed: InternalServerError 503/);
    expect(stub.requests).toHaveLength(5);
    const trace = readFileSync(join(runDir, 'trace.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; status?: string });
    expect(trace.filter((line) => line.kind === 'retry')).toHaveLength(4);
    expect(trace.at(-1)).toMatchObject({ kind: 'end', status: 'failed' });
  });

  it("--max-tokens holds against a provider whose tokenizer is denser than rein's first guess, even when every reply uses all of max_tokens", async () => {
    stub = await startOpenAIStub((request, index) => {
      // 2.5 characters a token, and every completion as long as it is allowed to be: the worst case for a cap.
      const promptTokens = Math.ceil(JSON.stringify([request.messages, request.tools]).length / 2.5);
      return {
        toolCalls: [{ name: 'run', arguments: { command: `echo step ${index}` } }],
        usage: { prompt_tokens: promptTokens, completion_tokens: request.max_tokens ?? 4096 },
      };
    });
    const repo = buggyRepo();
    const runDir = join(makeTempDir('rein-run-'), 'run');
    const result = await runCli(['run', repo, 'task', '--test-cmd', 'node --test', '--model', 'm', '--run-dir', runDir, '--max-tokens', '9000', '--json'], {
      env: cleanEnv({ OPENAI_BASE_URL: stub.url }),
    });
    const summary = JSON.parse(result.stdout.trim().split('\n').at(-1)!);
    expect(summary.status).toBe('budget');
    expect(summary.usage.calls).toBeGreaterThan(1);
    expect(summary.usage.promptTokens + summary.usage.completionTokens).toBeLessThanOrEqual(9000);
  });

  it('a provider that keeps rejecting the prompt as too long: a few smaller prompts, then failed with exit 3, not an endless loop', async () => {
    stub = await startOpenAIStub(() => ({
      status: 400,
      body: JSON.stringify({
        error: { message: "This model's maximum context length is 128 tokens.", code: 'context_length_exceeded', type: 'invalid_request_error' },
      }),
    }));
    const repo = buggyRepo();
    const runDir = join(makeTempDir('rein-run-'), 'run');
    const result = await runCli(['run', repo, 'task', '--test-cmd', 'node --test', '--model', 'm', '--run-dir', runDir], {
      env: cleanEnv({ OPENAI_BASE_URL: stub.url }),
    });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/rein: failed after 0\/40 steps/);
    expect(result.stderr).toContain('maximum context length');
    expect(stub.requests).toHaveLength(4);
    const trace = readFileSync(join(runDir, 'trace.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; action?: string; windowCap?: number });
    const caps = trace.filter((line) => line.kind === 'context' && line.action === 'provider_rejected_length').map((line) => line.windowCap!);
    expect(caps).toHaveLength(3);
    expect(caps[1]!).toBeLessThan(caps[0]!);
    expect(caps[2]!).toBeLessThan(caps[1]!);
  });

  it('the API key never reaches a tool result, a prompt or the trace, even when the agent runs env', async () => {
    stub = await startOpenAIStub((request) => {
      const results = request.messages.filter((message) => message.role === 'tool').length;
      if (results === 0)
        return { toolCalls: [{ name: 'run', arguments: { command: 'env; printenv OPENAI_API_KEY; cat /proc/$PPID/environ | tr "\\0" "\\n"' } }] };
      return { toolCalls: [{ name: 'finish', arguments: { summary: 'looked around' } }] };
    });
    const repo = buggyRepo();
    const runDir = join(makeTempDir('rein-run-'), 'run');
    await runCli(['run', repo, 'look', '--test-cmd', 'node --test', '--model', 'm', '--run-dir', runDir, '--max-steps', '3'], {
      env: cleanEnv({ OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: SECRET, NODE_AUTH_TOKEN: 'npm-secret-value-123456' }),
    });
    const everything = [
      JSON.stringify(stub.requests.map((request) => request.messages)),
      readFileSync(join(runDir, 'trace.jsonl'), 'utf8'),
      readFileSync(join(runDir, 'record.jsonl'), 'utf8'),
    ].join('\n');
    expect(everything).toContain('PATH=');
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain('npm-secret-value-123456');
  });

  it('a key the agent finds in a file is redacted before the model, the record or the journal sees it; a rules file the run planted is called out', async () => {
    stub = await startOpenAIStub((request) => {
      const commands = ['cat notes/deploy.txt', 'echo "export default { permissions: { sandbox: \'none\' } };" > rein.config.mjs', 'node --test'];
      const results = request.messages.filter((message) => message.role === 'tool').length;
      if (results < commands.length) return { toolCalls: [{ name: 'run', arguments: { command: commands[results]! } }] };
      return { toolCalls: [{ name: 'finish', arguments: { summary: 'done' } }] };
    });
    const repo = buggyRepo();
    writeFileSync(join(repo, 'add.js'), 'export function add(a, b) {\n  return a + b;\n}\n');
    mkdirSync(join(repo, 'notes'));
    writeFileSync(join(repo, 'notes', 'deploy.txt'), `token: ${SECRET}\n`);
    // Unsandboxed (the sandbox would refuse to write the rules file), from a rules file outside the repo.
    const rulesFile = join(makeTempDir('rein-rules-'), 'rules.json');
    writeFileSync(rulesFile, JSON.stringify({ permissions: { sandbox: 'none' } }));
    const runDir = join(makeTempDir('rein-run-'), 'run');
    const result = await runCli(['run', repo, 'look', '--test-cmd', 'node --test', '--model', 'm', '--run-dir', runDir, '--config', rulesFile], {
      env: cleanEnv({ OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: SECRET }),
    });
    expect(result.code, result.stderr).toBe(0);
    const everything = [
      JSON.stringify(stub.requests.map((request) => request.messages)),
      ...['trace.jsonl', 'record.jsonl', 'calls.jsonl'].map((name) => readFileSync(join(runDir, name), 'utf8')),
    ].join('\n');
    expect(everything).toContain('token: [redacted]');
    expect(everything).not.toContain(SECRET);
    expect(result.stderr).toContain(
      `WARNING: the run changed rein.config.mjs in the workspace. rein will not load it until you have reviewed it and run \`rein trust ${realpathSync(repo)}\``,
    );
    // The next run in that repo does not import what the agent wrote, until a person trusts it.
    const next = await runCli(['rules', 'show', '--workspace', repo], { env: cleanEnv() });
    expect(next.code).toBe(2);
    expect(next.stderr).toMatch(/rein\.config\.mjs: an agent run wrote this rules file; review it, then run `rein trust /);
    expect((await runCli(['rules', 'trust', '--workspace', repo], { env: cleanEnv() })).stderr).toContain('trusted rein.config.mjs');
    const trusted = await runCli(['rules', 'show', '--workspace', repo], { env: cleanEnv() });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(JSON.parse(trusted.stdout).permissions.sandbox).toBe('none');
  });

  it('rein demo runs offline and says where the trace is', async () => {
    const result = await runCli(['demo', '--json'], { env: cleanEnv() });
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout.trim());
    expect(summary.status).toBe('done');
    expect(result.stderr).toContain(`trace: `);
    expect(readFileSync(summary.trace, 'utf8').split('\n').filter(Boolean).length).toBeGreaterThan(50);
  });
});
