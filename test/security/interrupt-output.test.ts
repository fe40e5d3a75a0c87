import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type OpenAIStub, startOpenAIStub } from '../../testing/index.js';
import { cleanEnv, reinBin } from '../helpers/cli.js';
import { waitUntil } from '../helpers/wait.js';
import { makeTempDir } from '../helpers/workspace.js';

// Issue 25, item 14: Ctrl+C printed neither the warning about a rules file the run wrote nor the --json line.
let stub: OpenAIStub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

describe('rein run stopped with Ctrl+C', () => {
  it('still warns about the rules file the run wrote and prints its --json line', async () => {
    const commands = ['echo "export default {};" > rein.config.mjs', 'sleep 30'];
    stub = await startOpenAIStub((request) => {
      const results = request.messages.filter((message) => message.role === 'tool').length;
      return { toolCalls: [{ name: 'run', arguments: { command: commands[Math.min(results, 1)]! } }] };
    });
    const repo = makeTempDir('rein-int-');
    const rulesFile = join(makeTempDir('rein-rules-'), 'rules.json');
    writeFileSync(rulesFile, JSON.stringify({ permissions: { sandbox: 'none' } }));
    const child = spawn(process.execPath, [reinBin, 'run', repo, 'go', '--test-cmd', 'true', '--model', 'm', '--config', rulesFile, '--json'], {
      env: cleanEnv({ OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: 'sk-test-key-123456', XDG_STATE_HOME: makeTempDir('rein-state-') }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    await waitUntil(() => stub!.requests.length >= 2, 'the second command to be asked for', 20_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    child.kill('SIGINT');
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(130);
    expect(stderr).toMatch(/WARNING: the run changed rein\.config\.mjs/);
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toMatchObject({ status: 'interrupted', exitCode: 130 });
  }, 40_000);
});
