import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractiveSummary } from '../../actors/summarizer.js';
import type { TraceRecord } from '../../lib/trace-events.js';
import { readJsonLines } from '../../run/jsonl.js';
import { startRun } from '../../run/start-run.js';
import { readRecord } from '../../run/transcript.js';
import { call, createScriptedModel, type RulesInput, reply, rulesSchema, type Script } from '../../testing/index.js';
import { makeTempDir } from '../helpers/workspace.js';

async function runWithHooks(hooks: RulesInput['hooks'], script: Script, files: Record<string, string> = {}) {
  const workspace = makeTempDir('rein-hooks-ws-');
  for (const [name, content] of Object.entries(files)) writeFileSync(join(workspace, name), content);
  const runDir = makeTempDir('rein-hooks-run-');
  const model = createScriptedModel(script);
  const handle = startRun({
    workspace,
    runDir,
    task: 't',
    testCmd: 'true',
    rules: rulesSchema.parse({ verification: { gate: false }, phases: { plan: { enabled: false } }, hooks }),
    model: { name: 'scripted', description: 'scripted', createActor: () => model.actor, summarize: extractiveSummary },
    fsync: false,
    trustFile: join(makeTempDir('rein-trust-'), 'approvals.json'),
  });
  const output = await handle.done;
  const trace = readJsonLines<TraceRecord>(join(runDir, 'trace.jsonl')).values;
  const tools = readRecord(join(runDir, 'record.jsonl'))
    .filter((message) => message.role === 'tool')
    .map((message) => String(message.content));
  return { output, trace, tools, workspace };
}

const finish = reply(call('finish', { summary: 'done' }));

describe('lifecycle hooks in a real run (hooks/, run/start-run.ts)', () => {
  it('a preToolUse hook that exits 2 denies the call: it never runs, the model reads why, the trace has the hook and the decision', async () => {
    const policy = `grep -q 'rm -rf' && { echo 'no deleting here' >&2; exit 2; }; exit 0`;
    const run = await runWithHooks({ preToolUse: [{ command: policy, tools: 'run' }] }, [reply(call('run', { command: 'rm -rf keep.txt' })), finish], {
      'keep.txt': 'x',
    });
    expect(run.output.status).toBe('done');
    expect(existsSync(join(run.workspace, 'keep.txt'))).toBe(true);
    expect(run.tools[0]).toMatch(/denied \(by hook\)\. They said: no deleting here/);
    expect(run.trace.find((line) => line.kind === 'hook')).toMatchObject({ moment: 'preToolUse', exitCode: 2, decision: 'deny' });
    expect(run.trace.find((line) => line.kind === 'approval_decision')).toMatchObject({ by: 'hook', verdict: 'deny' });
  });

  it('a preToolUse hook that times out denies (fail closed) and is reported', async () => {
    const run = await runWithHooks({ preToolUse: [{ command: 'sleep 20', timeoutSeconds: 0.3 }] }, [
      reply(call('run', { command: 'echo hi > made.txt' })),
      finish,
    ]);
    expect(existsSync(join(run.workspace, 'made.txt'))).toBe(false);
    expect(run.trace.find((line) => line.kind === 'hook')).toMatchObject({ problem: expect.stringMatching(/timed out/) });
  });

  it('a postToolUse note reaches the model with the result; a beforeFinish hook can refuse a finish once; runEnd hears the end', async () => {
    const onceThenAllow = `test -f refused || { touch refused; echo '{"decision":"deny","message":"write the changelog first"}'; }`;
    const run = await runWithHooks(
      {
        postToolUse: [{ command: `echo '{"note":"remember the lint"}'` }],
        beforeFinish: [{ command: onceThenAllow }],
        runEnd: [{ command: 'cat > ended.json' }],
      },
      [reply(call('run', { command: 'echo hi' })), finish, finish],
    );
    expect(run.output.status).toBe('done');
    expect(run.tools[0]).toContain('[hook note] remember the lint');
    expect(run.tools).toContain('Finish refused by a beforeFinish hook: write the changelog first');
    const ended = JSON.parse(readFileSync(join(run.workspace, 'ended.json'), 'utf8')) as { moment: string; status: string };
    expect(ended).toMatchObject({ moment: 'runEnd', status: 'done' });
  });
});

describe('hook states in a real run: each moment on the chart and in the trace', () => {
  it('postToolUse, phaseChange and runEnd run as states (transitions in the trace), with the event on stdin and exit status traced', async () => {
    const run = await runWithHooks(
      {
        postToolUse: [{ command: `cat > post.json; echo '{"note":"checked"}'` }],
        phaseChange: [{ command: 'cat >> phases.jsonl; echo >> phases.jsonl' }],
        runEnd: [{ command: 'cat > ended.json' }],
      },
      // The test command's run takes build to verify (which is told), then a finish.
      [reply(call('run', { command: 'true' })), finish],
    );
    expect(run.output.status).toBe('done');
    const moves = run.trace.flatMap((line) => (line.kind === 'transition' ? [`${line.from} -> ${line.to}`] : []));
    expect(moves).toContain('build.act -> build.postToolHook');
    expect(moves).toContain('build.postToolHook -> build.afterTools');
    expect(moves.some((move) => move.endsWith('-> done'))).toBe(true);
    expect(moves).toContain('done -> ended');
    const hooks = run.trace.filter((line) => line.kind === 'hook');
    expect(hooks.map((line) => line.moment)).toEqual(['postToolUse', 'phaseChange', 'runEnd']);
    expect(hooks.every((line) => line.exitCode === 0 && typeof line.ms === 'number')).toBe(true);
    // The note went to the model with the call's result; the hook saw the call and its result.
    expect(run.tools[0]).toMatch(/^exit=0[\s\S]*\n\[hook note\] checked$/);
    const post = JSON.parse(readFileSync(join(run.workspace, 'post.json'), 'utf8')) as { call: { tool: string; args: unknown }; result: { ok: boolean } };
    expect(post).toMatchObject({ moment: 'postToolUse', call: { tool: 'run', args: { command: 'true' } }, result: { ok: true } });
    const phases = readFileSync(join(run.workspace, 'phases.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    expect(phases).toEqual([{ moment: 'phaseChange', from: 'build', to: 'verify', step: 1 }]);
    expect(moves).toContain('build.route -> verify.settleHook');
    expect(JSON.parse(readFileSync(join(run.workspace, 'ended.json'), 'utf8'))).toMatchObject({ moment: 'runEnd', status: 'done', steps: 2 });
    // The end line comes after the runEnd hook's: the run's last line (and its span, in an export) holds it.
    expect(run.trace.at(-1)).toMatchObject({ kind: 'end', status: 'done' });
    const last = run.trace.filter((line) => line.kind !== 'transition').slice(-2);
    expect(last.map((line) => line.kind)).toEqual(['hook', 'end']);
  });

  it('a postToolUse or runEnd hook that crashes is reported and changes nothing: the result is kept, the status stays', async () => {
    const run = await runWithHooks({ postToolUse: [{ command: 'echo broken >&2; exit 3' }], runEnd: [{ command: 'sleep 20', timeoutSeconds: 0.3 }] }, [
      reply(call('run', { command: 'echo hi' })),
      finish,
    ]);
    expect(run.output.status).toBe('done');
    expect(run.tools[0]).toBe('exit=0\nhi\n');
    const hooks = run.trace.filter((line) => line.kind === 'hook');
    expect(hooks[0]).toMatchObject({ moment: 'postToolUse', exitCode: 3, problem: 'exit 3: broken' });
    expect(hooks[1]).toMatchObject({ moment: 'runEnd', problem: expect.stringMatching(/timed out after 0.3 s/) });
  });
});
