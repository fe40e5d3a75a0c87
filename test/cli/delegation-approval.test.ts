import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TraceRecord } from '../../lib/trace/trace-events.js';
import { readJsonLines } from '../../run/record/jsonl.js';
import { type OpenAIStub, type StubRequest, startOpenAIStub } from '../../testing/index.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

const WRITE = 'echo ran >> out.txt';
const traceOf = (runDir: string) => readJsonLines<TraceRecord>(join(runDir, 'trace.jsonl')).values;

/** `delegates`: the parent hands the command to its writer; otherwise the parent runs it itself. */
function policy(delegates: boolean) {
  return (request: StubRequest) => {
    const results = request.messages.filter((message) => message.role === 'tool').length;
    if (request.model === 'child-model' || !delegates)
      return results === 0
        ? { toolCalls: [{ name: 'run', arguments: { command: WRITE } }] }
        : { toolCalls: [{ name: 'finish', arguments: { summary: 'wrote out.txt' } }] };
    if (results === 0) return { toolCalls: [{ name: 'delegate', arguments: { tasks: [{ agent: 'writer', task: 'Write out.txt.' }] } }] };
    return { toolCalls: [{ name: 'finish', arguments: { summary: 'the writer wrote it' } }] };
  };
}

describe('approvals.headless: exit with a delegated child (run/parts/run-to-end.ts, cli/commands/approve.ts)', () => {
  let stub: OpenAIStub | undefined;
  let env: NodeJS.ProcessEnv;
  beforeEach(() => {
    env = cleanEnv({ XDG_STATE_HOME: makeTempDir('rein-approval-state-') });
  });
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  async function parkedRun(delegates: boolean) {
    stub = await startOpenAIStub(policy(delegates));
    const repo = makeTempDir('rein-child-approval-');
    writeFileSync(join(repo, 'README.md'), 'a repo\n');
    const config = join(makeTempDir('rein-config-'), 'rules.json');
    writeFileSync(
      config,
      JSON.stringify({
        agents: { writer: { description: 'Writes', tools: ['run'], model: 'child-model' } },
        verification: { gate: false },
        approvals: { ask: ['run'], headless: 'exit' },
      }),
    );
    const runDir = join(makeTempDir('rein-run-'), 'run');
    const runEnv = { ...env, OPENAI_BASE_URL: stub.url };
    const result = await runCli(
      ['run', repo, 'Have out.txt written', '--test-cmd', 'true', '--model', 'parent-model', '--config', config, '--run-dir', runDir, '--json'],
      { env: runEnv },
    );
    return { result, repo, runDir, runEnv, json: JSON.parse(result.stdout.trim().split('\n').at(-1)!) as Record<string, unknown> };
  }

  it('a child waiting for an approval parks the whole run as the parent’s own would; rein approve and resume continue the child, then the parent', {
    timeout: 120_000,
  }, async () => {
    const own = await parkedRun(false);
    await stub!.close();
    const parked = await parkedRun(true);
    // The same exit code and --json status as a parent's own parked approval.
    expect(parked.result.code).toBe(own.result.code);
    expect(parked.result.code).toBe(5);
    expect(parked.json).toMatchObject({ status: 'awaiting_approval', exitCode: own.json.exitCode, runDir: parked.runDir });
    // The child is named, and the way on is the parent's run directory.
    expect(parked.json.reason).toMatch(/^agent "writer" \(1:0:0, in .*agents\/1-0-0-writer\): waiting for an approval of run/);
    expect(parked.json.reason).toContain(`answer with: npx rein approve ${parked.runDir}`);
    expect(existsSync(join(parked.repo, 'out.txt'))).toBe(false);

    const approved = await runCli(['approve', parked.runDir], { env: parked.runEnv });
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain('asked by agent "writer"');
    expect(approved.stdout).toContain(WRITE);
    const resumed = await runCli(['resume', parked.runDir, '--json'], { env: parked.runEnv });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout.trim().split('\n').at(-1)!)).toMatchObject({ status: 'done', summary: 'the writer wrote it' });
    expect(readFileSync(join(parked.repo, 'out.txt'), 'utf8')).toBe('ran\n');
    const child = traceOf(join(parked.runDir, 'agents', '1-0-0-writer'));
    expect(child.find((line) => line.kind === 'approval_decision')).toMatchObject({ verdict: 'allow', by: 'command', tool: 'run' });
    const parent = traceOf(parked.runDir);
    expect(parent.filter((line) => line.kind === 'agent').map((line) => line.event)).toEqual(['start', 'end', 'resume', 'end']);
    expect(parent.filter((line) => line.kind === 'tool' && line.name === 'delegate')).toHaveLength(1);
  });
});
