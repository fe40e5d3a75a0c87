import { existsSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AnswerSource } from '../../actors/approvals/approver.js';
import { extractiveSummary } from '../../actors/summarizer.js';
import { approveCommand } from '../../cli/commands/approve.js';
import { RunAwaitingApproval } from '../../lib/errors.js';
import type { TraceRecord } from '../../lib/trace/trace-events.js';
import { rememberedForRepository } from '../../rules/trust/index.js';
import { readJsonLines } from '../../run/record/jsonl.js';
import { loadState } from '../../run/record/state-file.js';
import { readRecord } from '../../run/record/transcript.js';
import { type RunOptions, resumeRun, startRun } from '../../run/start-run.js';
import { call, createScriptedModel, type RulesInput, reply, rulesSchema, type Script } from '../../testing/index.js';
import { makeTempDir } from '../helpers/workspace.js';

const WRITE = 'echo ran >> out.txt';
const rulesOf = (extra: RulesInput = {}) =>
  rulesSchema.parse({ verification: { gate: false }, phases: { plan: { enabled: false } }, ...extra, approvals: { ask: ['run'], ...extra.approvals } });

// Each test's remembered decisions in a trust store of its own (the user state dir).
beforeEach(() => {
  process.env.XDG_STATE_HOME = makeTempDir('rein-approval-state-');
});

function setup() {
  return { workspace: makeTempDir('rein-approval-ws-'), runDir: makeTempDir('rein-approval-run-') };
}

function options(dirs: ReturnType<typeof setup>, script: Script, rules = rulesOf(), extra: Partial<RunOptions> = {}): RunOptions {
  const model = createScriptedModel(script);
  return {
    workspace: dirs.workspace,
    runDir: dirs.runDir,
    task: 'Write out.txt.',
    testCmd: 'true',
    rules,
    model: { name: 'scripted', description: 'scripted', createActor: () => model.actor, summarize: extractiveSummary },
    fsync: false,
    approvalPollMs: 10,
    ...extra,
  };
}

const quietIo = () => {
  let out = '';
  const write = (text: string) => {
    out += text;
    return true;
  };
  const io = { stdout: { write }, stderr: { write: () => true } };
  return { io, out: () => out };
};
const traceOf = (dirs: ReturnType<typeof setup>) => readJsonLines<TraceRecord>(join(dirs.runDir, 'trace.jsonl')).values;
const toolTexts = (dirs: ReturnType<typeof setup>) =>
  readRecord(join(dirs.runDir, 'record.jsonl'))
    .filter((message) => message.role === 'tool')
    .map((message) => String(message.content));
const ranTimes = (dirs: ReturnType<typeof setup>) =>
  existsSync(join(dirs.workspace, 'out.txt')) ? readFileSync(join(dirs.workspace, 'out.txt'), 'utf8').split('\n').filter(Boolean).length : 0;
const finishing = reply(call('finish', { summary: 'done' }));

describe('approvals in a real run: headless exit, rein approve, resume (run/start-run.ts, actors/approvals/approver.ts)', () => {
  it('a headless run saves the pending call and exits; rein approve answers it; resume runs the call once', async () => {
    const dirs = setup();
    const first = await startRun(options(dirs, [reply(call('run', { command: WRITE }))]));
    await expect(first.done).rejects.toBeInstanceOf(RunAwaitingApproval);
    expect(ranTimes(dirs)).toBe(0);
    const saved = loadState(join(dirs.runDir, 'state.json')).snapshot as {
      value: unknown;
      context: { approvals: { pending: { tool: string; args: unknown } } };
    };
    expect(saved.value).toEqual({ build: 'awaitingApproval' });
    expect(saved.context.approvals.pending).toMatchObject({ tool: 'run', args: { command: WRITE } });
    const shown = quietIo();
    expect(await approveCommand([dirs.runDir], shown.io)).toBe(0);
    expect(shown.out()).toContain(WRITE);
    const second = await resumeRun(options(dirs, [finishing]));
    expect((await second.done).status).toBe('done');
    expect(ranTimes(dirs)).toBe(1);
    const decision = traceOf(dirs).find((line) => line.kind === 'approval_decision');
    expect(decision).toMatchObject({ verdict: 'allow', by: 'command', tool: 'run' });
    expect(existsSync(join(dirs.runDir, 'approval-answer.json'))).toBe(false);
  });

  it('rein approve --deny --message: the call never runs, the model reads the denial and the message, the run goes on', async () => {
    const dirs = setup();
    await expect((await startRun(options(dirs, [reply(call('run', { command: WRITE }))]))).done).rejects.toBeInstanceOf(RunAwaitingApproval);
    await approveCommand([dirs.runDir, '--deny', '--message', 'write it with edit_file'], quietIo().io);
    expect((await (await resumeRun(options(dirs, [finishing]))).done).status).toBe('done');
    expect(ranTimes(dirs)).toBe(0);
    expect(toolTexts(dirs).find((text) => text.includes('denied'))).toMatch(/denied \(by command\)\. They said: write it with edit_file/);
  });

  it('an answer file bound to other arguments (written by hand, or stale) is a denial, not an approval', async () => {
    const dirs = setup();
    await expect((await startRun(options(dirs, [reply(call('run', { command: WRITE }))]))).done).rejects.toBeInstanceOf(RunAwaitingApproval);
    const request = JSON.parse(readFileSync(join(dirs.runDir, 'approval-request.json'), 'utf8')) as { callId: string };
    writeFileSync(
      join(dirs.runDir, 'approval-answer.json'),
      JSON.stringify({ callId: request.callId, argsHash: 'f'.repeat(32), verdict: 'allow', by: 'command' }),
    );
    expect((await (await resumeRun(options(dirs, [finishing]))).done).status).toBe('done');
    expect(ranTimes(dirs)).toBe(0);
    expect(traceOf(dirs).find((line) => line.kind === 'approval_decision')).toMatchObject({ verdict: 'deny', mismatch: true });
  });

  it('rein approve --call refuses to answer when the run waits on another call', async () => {
    const dirs = setup();
    await expect((await startRun(options(dirs, [reply(call('run', { command: WRITE }))]))).done).rejects.toBeInstanceOf(RunAwaitingApproval);
    await expect(approveCommand([dirs.runDir, '--call', 'call_other'], quietIo().io)).rejects.toThrow(/waits on call .*not call_other/);
    expect(existsSync(join(dirs.runDir, 'approval-answer.json'))).toBe(false);
  });

  it('no answer within the timeout counts as deny (a source that never answers)', async () => {
    const dirs = setup();
    const silent: AnswerSource = {
      by: 'terminal',
      ask: (_pending, signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    };
    const run = await startRun(
      options(dirs, [reply(call('run', { command: WRITE })), finishing], rulesOf({ approvals: { timeoutSeconds: 0.2 } }), { answerSources: [silent] }),
    );
    expect((await run.done).status).toBe('done');
    expect(ranTimes(dirs)).toBe(0);
    expect(traceOf(dirs).find((line) => line.kind === 'approval_decision')).toMatchObject({ verdict: 'deny', by: 'timeout' });
  });

  it('a terminal answer "always for this repository" goes to the trust store; the next run on the repository is not asked', async () => {
    const dirs = setup();
    const yes: AnswerSource = { by: 'terminal', ask: async () => ({ verdict: 'allow', remember: 'repository' }) };
    expect((await (await startRun(options(dirs, [reply(call('run', { command: WRITE })), finishing], rulesOf(), { answerSources: [yes] }))).done).status).toBe(
      'done',
    );
    expect(rememberedForRepository(realpathSync(dirs.workspace))).toEqual([
      expect.objectContaining({ verdict: 'allow', scope: 'repository', tool: 'run', command: WRITE }),
    ]);
    // Kept outside the repository: nothing of it is in the workspace.
    expect(readdirSync(dirs.workspace).filter((name) => name !== '.rein' && name !== 'out.txt')).toEqual([]);
    // A second run, headless: it would park if asked.
    const again = { ...dirs, runDir: makeTempDir('rein-approval-run-') };
    expect((await (await startRun(options(again, [reply(call('run', { command: WRITE })), finishing]))).done).status).toBe('done');
    expect(ranTimes(dirs)).toBe(2);
    expect(traceOf(again).find((line) => line.kind === 'approval_decision')).toMatchObject({ verdict: 'allow', by: 'remembered' });
    // Another command is still asked.
    const other = { ...dirs, runDir: makeTempDir('rein-approval-run-') };
    await expect((await startRun(options(other, [reply(call('run', { command: 'echo other' }))]))).done).rejects.toBeInstanceOf(RunAwaitingApproval);
  });

  it('approvals.headless deny answers every ask by the policy, and the run goes on', async () => {
    const dirs = setup();
    const run = await startRun(options(dirs, [reply(call('run', { command: WRITE })), finishing], rulesOf({ approvals: { headless: 'deny' } })));
    expect((await run.done).status).toBe('done');
    expect(ranTimes(dirs)).toBe(0);
    expect(traceOf(dirs).find((line) => line.kind === 'approval_decision')).toMatchObject({ verdict: 'deny', by: 'policy' });
  });
});

describe('SIGKILL while waiting for an approval loses nothing (a real process killed)', () => {
  it('the killed run resumes waiting on the same call, which runs once after it is approved', async () => {
    const dirs = setup();
    const { spawn } = await import('node:child_process');
    const { pathToFileURL } = await import('node:url');
    const { repoRoot } = await import('../helpers/cli.js');
    const dist = (file: string) => JSON.stringify(pathToFileURL(join(repoRoot, 'dist', file)).href);
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
      const { startRun } = await import(${dist('run/start-run.js')});
      const { createScriptedModel, reply, call } = await import(${dist('actors/model/scripted-model.js')});
      const { extractiveSummary } = await import(${dist('actors/summarizer.js')});
      const { rulesSchema } = await import(${dist('rules/schema.js')});
      const model = createScriptedModel([reply(call('run', { command: ${JSON.stringify(WRITE)} }))]);
      // A person at a terminal who never answers: the run waits.
      const never = { by: 'terminal', ask: () => new Promise(() => {}) };
      await startRun({ workspace: process.env.WS, runDir: process.env.RUN, task: 't', testCmd: 'true', fsync: false,
        rules: rulesSchema.parse(${JSON.stringify({ verification: { gate: false }, phases: { plan: { enabled: false } }, approvals: { ask: ['run'] } })}),
        model: { name: 'scripted', description: 'scripted', createActor: () => model.actor, summarize: extractiveSummary },
        answerSources: [never] });
    `,
      ],
      { env: { ...process.env, WS: dirs.workspace, RUN: dirs.runDir }, stdio: 'ignore' },
    );
    const request = join(dirs.runDir, 'approval-request.json');
    for (let waited = 0; !existsSync(request) && waited < 15_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(existsSync(request)).toBe(true);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const asked = JSON.parse(readFileSync(request, 'utf8')) as { callId: string; argsHash: string };
    // Resumed headless: back in awaitingApproval on the same call, nothing ran.
    await expect((await resumeRun(options(dirs, []))).done).rejects.toBeInstanceOf(RunAwaitingApproval);
    const pending = (loadState(join(dirs.runDir, 'state.json')).snapshot as { context: { approvals: { pending: { callId: string; argsHash: string } } } })
      .context.approvals.pending;
    expect(pending).toMatchObject({ callId: asked.callId, argsHash: asked.argsHash });
    expect(ranTimes(dirs)).toBe(0);
    await approveCommand([dirs.runDir, '--call', asked.callId], quietIo().io);
    expect((await (await resumeRun(options(dirs, [finishing]))).done).status).toBe('done');
    expect(ranTimes(dirs)).toBe(1);
  });
});

describe('a malformed answer file', () => {
  it('denies the waiting call (fail closed) and is removed, so the next call is asked afresh', async () => {
    const dirs = setup();
    await expect((await startRun(options(dirs, [reply(call('run', { command: WRITE }))]))).done).rejects.toBeInstanceOf(RunAwaitingApproval);
    writeFileSync(join(dirs.runDir, 'approval-answer.json'), '{"verdict": "allow"');
    const resumed = await resumeRun(options(dirs, [reply(call('run', { command: 'echo second' }))]));
    await expect(resumed.done).rejects.toBeInstanceOf(RunAwaitingApproval);
    expect(ranTimes(dirs)).toBe(0);
    expect(traceOf(dirs).find((line) => line.kind === 'approval_decision')).toMatchObject({ verdict: 'deny', message: expect.stringMatching(/not JSON/) });
    expect(existsSync(join(dirs.runDir, 'approval-answer.json'))).toBe(false);
    const pending = JSON.parse(readFileSync(join(dirs.runDir, 'approval-request.json'), 'utf8')) as { args: unknown };
    expect(pending.args).toEqual({ command: 'echo second' });
  });
});
