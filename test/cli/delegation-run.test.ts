import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readRunMeta } from '../../run/index.js';
import { type OpenAIStub, type StubRequest, startOpenAIStub } from '../../testing/index.js';
import { extensionsForTrace } from '../../visualizer/server/trace-extensions.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

/** The parent delegates once and finishes with the report; the explorer, on its own model, greps and reports. */
function policy(request: StubRequest) {
  const tools = request.messages.filter((message) => message.role === 'tool');
  if (request.model === 'explorer-model')
    return tools.length === 0
      ? { toolCalls: [{ name: 'grep', arguments: { pattern: 'def mean' } }] }
      : { toolCalls: [{ name: 'finish', arguments: { summary: 'mean() is in stats.py' } }] };
  return tools.length === 0
    ? { toolCalls: [{ name: 'delegate', arguments: { tasks: [{ agent: 'explorer', task: 'Where is mean() defined?' }] } }] }
    : { toolCalls: [{ name: 'finish', arguments: { summary: String(tools[0]?.content).split('\n')[1] } }] };
}

describe('rein run with an agent declared in the rules file', () => {
  let stub: OpenAIStub | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  it('runs the child on its own model and prints one --json summary with usage per agent', async () => {
    stub = await startOpenAIStub(policy);
    const repo = makeTempDir('rein-e2e-');
    writeFileSync(join(repo, 'stats.py'), 'def mean(xs):\n    return sum(xs) / len(xs)\n');
    const config = join(makeTempDir('rein-config-'), 'rules.json');
    writeFileSync(
      config,
      JSON.stringify({
        agents: { explorer: { description: 'Finds code', readOnly: true, model: 'explorer-model', budget: { share: 0.25 } } },
        verification: { gate: false },
        model: { prices: { 'parent-model': { input: 1, cachedInput: 0.1, output: 2 }, 'explorer-model': { input: 1, cachedInput: 0.1, output: 2 } } },
      }),
    );
    const runDir = join(makeTempDir('rein-run-'), 'run');
    const result = await runCli(
      ['run', repo, 'Find mean', '--test-cmd', 'true', '--model', 'parent-model', '--config', config, '--run-dir', runDir, '--json'],
      {
        env: cleanEnv({ OPENAI_BASE_URL: stub.url }),
      },
    );
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout.trim().split('\n').at(-1)!);
    expect(summary.summary).toBe('mean() is in stats.py');
    expect(summary.agents.map((entry: { agent: string; runs: number; steps: number }) => [entry.agent, entry.runs, entry.steps])).toEqual([
      ['main', 1, 2],
      ['explorer', 1, 2],
    ]);
    const total = summary.agents.reduce((sum: number, entry: { usage: { costUsd: number } }) => sum + entry.usage.costUsd, 0);
    expect(total).toBeCloseTo(summary.usage.costUsd, 12);
    expect(summary.agents[1].usage.costUsd).toBeGreaterThan(0);
    expect(stub.requests.filter((request) => request.model === 'explorer-model')).toHaveLength(2);
    // The step budget counts the explorer's 2 steps with the run's 2: the end line says so.
    expect(result.stderr).toMatch(/rein: done after 2\/\d+ steps \(4\/\d+ with its agents'\);/);
    // The child's page loads the rules file as the run started with it: no "changed since" warning.
    const [childName] = readdirSync(join(runDir, 'agents'));
    const childDir = join(runDir, 'agents', childName!);
    expect(readRunMeta(childDir).configFingerprint).toEqual(readRunMeta(runDir).configFingerprint);
    expect((await extensionsForTrace(join(childDir, 'trace.jsonl'), undefined)).notes).toEqual([]);
    expect(result.stderr).toMatch(/rein: {3}explorer ×1: 2 steps, \d+ prompt \+ \d+ completion tokens, \$0\.\d{4}/);
  });
});
