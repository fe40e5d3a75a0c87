import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractiveSummary } from '../../actors/summarizer.js';
import type { TraceRecord } from '../../lib/trace/trace-events.js';
import { readJsonLines } from '../../run/record/jsonl.js';
import { readRecord } from '../../run/record/transcript.js';
import { startRun } from '../../run/start-run.js';
import { call, createScriptedModel, type RulesInput, reply, rulesSchema, type Script } from '../../testing/index.js';
import { makeTempDir } from '../helpers/workspace.js';

async function runWithHooks(hooks: RulesInput['hooks'], script: Script, files: Record<string, string> = {}) {
  const workspace = makeTempDir('rein-hooks-ws-');
  for (const [name, content] of Object.entries(files)) writeFileSync(join(workspace, name), content);
  const runDir = makeTempDir('rein-hooks-run-');
  const model = createScriptedModel(script);
  const handle = await startRun({
    workspace,
    runDir,
    task: 't',
    testCmd: 'true',
    rules: rulesSchema.parse({ verification: { gate: false }, phases: { plan: { enabled: false } }, hooks }),
    model: { name: 'scripted', description: 'scripted', createActor: () => model.actor, summarize: extractiveSummary },
    fsync: false,
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

  it('a postToolUse note reaches the model with the result; a beforeFinish hook refuses a finish until the workspace is right; runEnd hears the end', async () => {
    // The hook sees the workspace as it is now (read-only, in its sandbox): the agent's changelog lets the finish through.
    const changelogFirst = `test -f CHANGELOG.md || echo '{"decision":"deny","message":"write the changelog first"}'`;
    const run = await runWithHooks(
      {
        postToolUse: [{ command: `echo '{"note":"remember the lint"}'` }],
        beforeFinish: [{ command: changelogFirst }],
        runEnd: [{ command: 'cat >&2' }],
      },
      [reply(call('run', { command: 'echo hi' })), finish, reply(call('run', { command: 'echo "- fixed" > CHANGELOG.md' })), finish],
    );
    expect(run.output.status).toBe('done');
    expect(run.tools[0]).toContain('[hook note] remember the lint');
    expect(run.tools).toContain('Finish refused by a beforeFinish hook: write the changelog first');
    const ended = run.trace.find((line) => line.kind === 'hook' && line.moment === 'runEnd');
    expect(JSON.parse(String(ended?.kind === 'hook' && ended.stderr))).toMatchObject({ moment: 'runEnd', status: 'done' });
  });
});

describe('where hooks run in a real run (actors/hooks/hook-launch.ts)', () => {
  it('a where: host hook whose script lives outside the workspace runs on the host: it writes a host file, the trace says host and why', async () => {
    const outside = makeTempDir('rein-hooks-host-');
    writeFileSync(join(outside, 'notify.sh'), `cat > "${outside}/ended.json"\n`);
    const run = await runWithHooks({ runEnd: [{ command: `sh ${join(outside, 'notify.sh')}`, where: 'host' }] }, [finish]);
    expect(JSON.parse(readFileSync(join(outside, 'ended.json'), 'utf8'))).toMatchObject({ moment: 'runEnd', status: 'done' });
    expect(run.trace.find((line) => line.kind === 'hook')).toMatchObject({ moment: 'runEnd', where: 'host', hostBecause: 'where: host', exitCode: 0 });
  });

  it('a where: host hook that names a script in the workspace stops the run before it starts, rules given to startRun included', async () => {
    await expect(runWithHooks({ preToolUse: [{ command: './policy.sh', where: 'host' }] }, [finish], { 'policy.sh': 'echo {}' })).rejects.toThrow(
      /hooks\.preToolUse\[0\] \(`\.\/policy\.sh`\) has where: host, and `\.\/policy\.sh` is a path inside the workspace/,
    );
  });
});

describe('hook states in a real run: each moment on the chart and in the trace', () => {
  it('postToolUse, phaseChange and runEnd run as states (transitions in the trace), with the event on stdin and exit status traced', async () => {
    const run = await runWithHooks(
      {
        // Each hook shows the event it read on stdin on its stderr, which the trace keeps.
        postToolUse: [{ command: `cat >&2; echo '{"note":"checked"}'` }],
        phaseChange: [{ command: 'cat >&2' }],
        runEnd: [{ command: 'cat >&2' }],
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
    const [post, phase, ended] = hooks.map((line) => JSON.parse(String(line.kind === 'hook' && line.stderr)) as Record<string, unknown>);
    expect(post).toMatchObject({ moment: 'postToolUse', call: { tool: 'run', args: { command: 'true' } }, result: { ok: true } });
    expect(phase).toEqual({
      moment: 'phaseChange',
      from: 'build',
      to: 'verify',
      step: 1,
      hook_event_name: 'phaseChange',
      session_id: expect.any(String),
      transcript_path: expect.stringMatching(/record\.jsonl$/),
      cwd: run.workspace,
    });
    expect(moves).toContain('build.route -> verify.settleHook');
    expect(ended).toMatchObject({ moment: 'runEnd', status: 'done', steps: 2 });
    // Each ran in a sandbox of its own, as the default says.
    expect(hooks.every((line) => line.kind === 'hook' && line.where === 'sandbox')).toBe(true);
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
