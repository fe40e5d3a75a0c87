import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnswerSource } from '../../actors/approvals/approver.js';
import { extractiveSummary } from '../../actors/summarizer.js';
import { approveCommand } from '../../cli/commands/approve.js';
import { RunAwaitingApproval } from '../../lib/errors.js';
import type { TraceRecord } from '../../lib/trace/trace-events.js';
import { readJsonLines } from '../../run/record/jsonl.js';
import { readRecord } from '../../run/record/transcript.js';
import { type RunOptions, resumeRun, startRun } from '../../run/start-run.js';
import { call, createScriptedModel, reply, rulesSchema, type Script } from '../../testing/index.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * Two of the approval bug classes issue 30 names, in real runs that resume (the others, with probeHarness, are in
 * test/machines/approval-bug-classes.test.ts): a declined call executed after resume, and a node re-run on resume.
 */
const finishing = reply(call('finish', { summary: 'done' }));
const rules = rulesSchema.parse({ verification: { gate: false }, phases: { plan: { enabled: false } }, approvals: { ask: ['run(echo *)'] } });

function options(dirs: { workspace: string; runDir: string }, script: Script, extra: Partial<RunOptions> = {}): RunOptions {
  const model = createScriptedModel(script);
  return {
    ...dirs,
    task: 't',
    testCmd: 'true',
    rules,
    model: { name: 'scripted', description: 'scripted', createActor: () => model.actor, summarize: extractiveSummary },
    fsync: false,
    approvalPollMs: 10,
    ...extra,
  };
}
const setup = () => ({
  workspace: makeTempDir('rein-resume-bug-ws-'),
  runDir: makeTempDir('rein-resume-bug-run-'),
});
const lines = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : []);

describe('approval bug classes across a resume', () => {
  it('"a declined call executed after resume": killed at the act checkpoint right after a denial, the resumed run answers the call with the denial and never runs it', async () => {
    const dirs = setup();
    const killedAt = makeTempDir('rein-resume-bug-killed-');
    const refuse: AnswerSource = { by: 'terminal', ask: async () => ({ verdict: 'deny', message: 'not on a Friday' }) };
    let denied = false;
    const first = await startRun(
      options(dirs, [reply(call('run', { command: 'echo deployed >> deploy.log' })), finishing], {
        answerSources: [refuse],
        onTrace: (line) => {
          // What a kill right after the act checkpoint leaves: the journal as it was before the tool actor began,
          // the state saved at act (its context holding the denial), the record up to it.
          if (line.kind === 'approval_decision' && line.verdict === 'deny') {
            denied = true;
            copyFileSync(join(dirs.runDir, 'calls.jsonl'), join(killedAt, 'calls.jsonl'));
          }
          if (denied && line.kind === 'tool') {
            denied = false;
            for (const file of ['state.json', 'record.jsonl', 'trace.jsonl', 'run.json']) copyFileSync(join(dirs.runDir, file), join(killedAt, file));
          }
        },
      }),
    );
    expect((await first.done).status).toBe('done');
    const saved = JSON.parse(readFileSync(join(killedAt, 'state.json'), 'utf8')) as { snapshot: { value: unknown } };
    expect(saved.snapshot.value).toEqual({ build: 'act' });
    const resumed = await resumeRun(options({ ...dirs, runDir: killedAt }, [finishing]));
    expect((await resumed.done).status).toBe('done');
    expect(existsSync(join(dirs.workspace, 'deploy.log'))).toBe(false);
    const results = readRecord(join(killedAt, 'record.jsonl')).filter((message) => message.role === 'tool');
    expect(String(results[0]!.content)).toMatch(/denied \(by terminal\)\. They said: not on a Friday/);
  });

  it('"a node re-run on resume": the calls that ran before the waiting one are not run again when the run resumes there, nor is the approved one run twice', async () => {
    const dirs = setup();
    const first = await startRun(options(dirs, [reply(call('run', { command: 'true; date >> before.log' }), call('run', { command: 'echo x >> asked.log' }))]));
    await expect(first.done).rejects.toBeInstanceOf(RunAwaitingApproval);
    expect(lines(join(dirs.workspace, 'before.log'))).toHaveLength(1);
    await approveCommand([dirs.runDir], { stdout: { write: () => true }, stderr: { write: () => true } });
    expect((await (await resumeRun(options(dirs, [finishing]))).done).status).toBe('done');
    // The resumed run picked up in awaitingApproval (the saved request), not at the act that ran the first call.
    const trace = readJsonLines<TraceRecord>(join(dirs.runDir, 'trace.jsonl')).values;
    expect(trace.find((line) => line.kind === 'resume')).toMatchObject({ fromState: 'build.awaitingApproval' });
    expect(lines(join(dirs.workspace, 'before.log'))).toHaveLength(1);
    expect(lines(join(dirs.workspace, 'asked.log'))).toEqual(['x']);
    expect(trace.filter((line) => line.kind === 'tool').map((line) => (line as unknown as { args: { command: string } }).args.command)).toEqual([
      'true; date >> before.log',
      'echo x >> asked.log',
    ]);
  });
});
