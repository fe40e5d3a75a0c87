import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type OpenAIStub, startOpenAIStub } from '../../testing/index.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

let stub: OpenAIStub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

const count = (repo: string) =>
  fs.existsSync(path.join(repo, 'count.txt')) ? fs.readFileSync(path.join(repo, 'count.txt'), 'utf8').split('\n').length - 1 : 0;

// Issue 25, item 14: one reply could run 500 commands inside one step of the step budget.
describe('the tool calls of one reply', () => {
  it('a reply of 500 commands runs 16 of them (tools.maxCallsPerReply), tells the model about the rest, and a 3-call reply runs whole', async () => {
    const repo = makeTempDir('rein-calls-');
    const told: string[] = [];
    const counted: number[] = [];
    stub = await startOpenAIStub((request) => {
      const turns = request.messages.filter((message) => message.role === 'assistant').length;
      const results = request.messages.filter((message) => message.role === 'tool');
      counted.push(count(repo));
      if (turns === 0)
        return { toolCalls: Array.from({ length: 500 }, (_, index) => ({ id: `a${index}`, name: 'run', arguments: { command: 'echo x >> count.txt' } })) };
      if (turns === 1) {
        told.push(String(results.at(-1)!.content));
        return { toolCalls: ['b0', 'b1', 'b2'].map((id) => ({ id, name: 'run', arguments: { command: 'echo y >> count.txt' } })) };
      }
      if (turns === 2) return { toolCalls: [{ id: 'c0', name: 'run', arguments: { command: 'true' } }] };
      return { toolCalls: [{ id: 'd0', name: 'finish', arguments: { summary: 'counted' } }] };
    });
    const result = await runCli(['run', repo, 'count', '--test-cmd', 'true', '--model', 'm', '--json'], {
      env: cleanEnv({ OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: 'sk-test-key-123456', XDG_STATE_HOME: makeTempDir('rein-state-') }),
      timeoutMs: 120_000,
    });
    expect(result.code, result.stderr).toBe(0);
    // After the 500-call reply: 16 ran; after the 3-call reply: all 3 more.
    expect(counted.slice(0, 3)).toEqual([0, 16, 19]);
    expect(told[0]).toMatch(/^Not run: one reply may make at most 16 tool calls \(tools\.maxCallsPerReply\), and this was call 500\./);
    expect(JSON.parse(result.stdout.trim().split('\n').at(-1)!)).toMatchObject({ status: 'done', steps: 4 });
  }, 150_000);
});
