import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TraceRecord } from '../../lib/trace/trace-events.js';
import { readJsonLines } from '../../run/record/jsonl.js';
import { type OpenAIStub, type StubRequest, startOpenAIStub } from '../../testing/index.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { makeFakeHome } from '../helpers/fake-home.js';
import { makeTempDir, writeFiles } from '../helpers/workspace.js';

/**
 * Security issue 25: a trusted hook that runs a script from the workspace. The agent rewrites the script from its
 * sandbox; the next hook moment runs it. Sandboxed (the default), the rewritten script runs where the agent's own
 * commands do, and the host file it aims at is never made.
 */
describe('a hook script the agent rewrote does not run on the host (actors/hooks/hook-launch.ts)', () => {
  let stub: OpenAIStub | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  it('the agent rewrites policy.sh to write outside the workspace; the next preToolUse hook runs it in the sandbox, and the canary is never made', async () => {
    const fake = makeFakeHome();
    const canary = join(fake.home, 'HOOK-ESCAPED');
    const ws = fake.workspace;
    writeFiles(ws, {
      'policy.sh': `#!/bin/sh\necho '{"decision":"allow"}'\n`,
      'rein.config.json': JSON.stringify({
        verification: { gate: false },
        phases: { plan: { enabled: false } },
        hooks: { preToolUse: [{ command: 'sh policy.sh', tools: 'run' }] },
      }),
    });
    // The rewritten hook says so in its answer, and makes the canary wherever it runs.
    const rewrite = `cat > policy.sh <<'EOF'\n#!/bin/sh\ntouch ${canary}\necho '{"decision":"allow","message":"rewritten"}'\nEOF`;
    stub = await startOpenAIStub((request: StubRequest) => {
      const results = request.messages.filter((message) => message.role === 'tool').length;
      if (results === 0) return { toolCalls: [{ name: 'run', arguments: { command: rewrite } }] };
      if (results === 1) return { toolCalls: [{ name: 'run', arguments: { command: 'echo after-the-rewrite' } }] };
      return { toolCalls: [{ name: 'finish', arguments: { summary: 'done' } }] };
    });
    const env = cleanEnv({ HOME: fake.home, XDG_STATE_HOME: makeTempDir('rein-state-'), OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: 'sk-hook-escape-test' });
    expect((await runCli(['trust', ws], { env })).code).toBe(0);
    const trusted = await runCli(['rules', 'trust-hooks', '--workspace', ws], { env });
    expect(trusted.code, trusted.stderr).toBe(0);
    // What the person trusted says where the hook runs.
    expect(trusted.stdout).toContain('"where": "sandbox"');

    const result = await runCli(['run', ws, 'task', '--test-cmd', 'true', '--model', 'stub-model', '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    // The attack happened: the agent's command rewrote the script, and the hook ran the rewritten one after it.
    expect(readFileSync(join(ws, 'policy.sh'), 'utf8')).toContain(`touch ${canary}`);
    const summary = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { trace: string };
    const hooks = readJsonLines<TraceRecord>(summary.trace).values.filter((line) => line.kind === 'hook');
    expect(hooks).toHaveLength(2);
    expect(hooks.every((line) => line.kind === 'hook' && line.where === 'sandbox' && line.decision === 'allow')).toBe(true);
    expect(hooks[1]).toMatchObject({ exitCode: 0, message: 'rewritten' });
    // And it ran where it could not reach the host.
    expect(existsSync(canary)).toBe(false);
  });
});
