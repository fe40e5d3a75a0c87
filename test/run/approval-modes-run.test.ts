import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnswerSource } from '../../actors/approvals/approver.js';
import { extractiveSummary } from '../../actors/summarizer.js';
import type { TraceRecord } from '../../lib/trace/trace-events.js';
import { readJsonLines } from '../../run/record/jsonl.js';
import { readRecord } from '../../run/record/transcript.js';
import { startRun } from '../../run/start-run.js';
import { call, createScriptedModel, type RulesInput, reply, rulesSchema, type Script } from '../../testing/index.js';
import { makeTempDir } from '../helpers/workspace.js';

/** Approvals in real runs: the verification command is never asked about, and a person's answer is final over the overridable built-ins. */

async function run(rules: RulesInput, script: Script, options: { testCmd?: string; answerSources?: AnswerSource[] } = {}) {
  const workspace = makeTempDir('rein-approval-modes-ws-');
  const runDir = makeTempDir('rein-approval-modes-run-');
  const model = createScriptedModel(script);
  const handle = await startRun({
    workspace,
    runDir,
    task: 't',
    testCmd: options.testCmd ?? 'true',
    rules: rulesSchema.parse({ verification: { gate: false }, phases: { plan: { enabled: false } }, ...rules }),
    model: { name: 'scripted', description: 'scripted', createActor: () => model.actor, summarize: extractiveSummary },
    fsync: false,
    ...(options.answerSources ? { answerSources: options.answerSources } : {}),
  });
  const output = await handle.done;
  const trace = readJsonLines<TraceRecord>(join(runDir, 'trace.jsonl')).values;
  const tools = readRecord(join(runDir, 'record.jsonl'))
    .filter((message) => message.role === 'tool')
    .map((message) => String(message.content));
  return { output, trace, tools, workspace };
}

const finish = reply(call('finish', { summary: 'done' }));
const yes: AnswerSource = { by: 'terminal', ask: async () => ({ verdict: 'allow' }) };

describe('approvals in a real run', () => {
  it('the verification command is never asked about, even when every command asks; any other command is', async () => {
    const result = await run(
      { approvals: { ask: ['run'], headless: 'deny' }, verification: { gate: false, checks: [{ name: 'lint', command: 'touch linted.txt' }] } },
      [
        reply(call('run', { command: 'touch  verified.txt' })),
        reply(call('run', { command: 'touch linted.txt' })),
        reply(call('run', { command: 'touch other.txt' })),
        finish,
      ],
      { testCmd: 'touch verified.txt' },
    );
    expect(existsSync(join(result.workspace, 'verified.txt'))).toBe(true);
    expect(existsSync(join(result.workspace, 'linted.txt'))).toBe(true);
    expect(existsSync(join(result.workspace, 'other.txt'))).toBe(false);
    expect(result.trace.filter((line) => line.kind === 'approval_ask')).toHaveLength(1);
  });

  it('a deny rule still refuses the verification command', async () => {
    const result = await run({ approvals: { deny: ['run(touch *)'] } }, [reply(call('run', { command: 'touch verified.txt' })), finish], {
      testCmd: 'touch verified.txt',
    });
    expect(existsSync(join(result.workspace, 'verified.txt'))).toBe(false);
  });

  it('a person’s approval is final over an overridable built-in (git push, sudo); not over one they cannot override, nor their own deny pattern', async () => {
    const result = await run(
      { approvals: { ask: ['run'] }, permissions: { deny: ['\\bterraform\\s+apply\\b'] } },
      [
        reply(call('run', { command: 'git push origin main' })),
        reply(call('run', { command: 'rm -rf /' })),
        reply(call('run', { command: 'terraform apply' })),
        finish,
      ],
      { answerSources: [yes] },
    );
    expect(result.output.status).toBe('done');
    // git push ran (and failed: there is no repository), rather than being blocked by policy.
    expect(result.tools[0]).not.toMatch(/Blocked by policy/);
    expect(result.tools[0]).toMatch(/^exit=\d+/);
    expect(result.tools[1]).toMatch(/Blocked by policy: recursive delete/);
    expect(result.tools[2]).toMatch(/Blocked by policy: command matches the deny pattern/);
  });

  it('without a person’s answer (a rule allows it) the built-in deny list still blocks git push', async () => {
    const result = await run({ approvals: { allow: ['run(git push *)'] } }, [reply(call('run', { command: 'git push origin main' })), finish]);
    expect(result.tools[0]).toMatch(/Blocked by policy: git push/);
  });
});
