import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScriptedReply } from '../../actors/model/scripted-model.js';
import type { ChatMessage } from '../../context/messages.js';
import { createSimulatedAgent } from '../../eval/simulated/agent.js';
import { harnessTexts } from '../../eval/simulated/feedback.js';
import { shellEdit } from '../../eval/simulated/intents.js';
import { traitsOf } from '../../eval/simulated/registry.js';
import { simulationSchema } from '../../eval/simulated/simulation-schema.js';
import { defaultRules } from '../../rules/schema.js';
import { makeTempDir } from '../../testing/temp-dir.js';

const ALL_TOOLS = ['read_file', 'grep', 'edit_file', 'run', 'update_todo', 'finish'];
const rules = defaultRules();
const REFUSAL = rules.verification.refusal.replace('{cmd}', 'npm test');
const NUDGE = `[harness] ${rules.messages.stall.repeatedFailure!.replace('{limit}', '3')}`;

const simulation = simulationSchema.parse({
  inspect: ['calc.js'],
  fixes: [
    { path: 'calc.js', old: 'a - b', new: 'a + b', broken: 'a + (b', todo: 'add adds' },
    { path: 'calc.js', old: 'x * 1', new: 'x * 2', reveal: 'double doubles' },
    { path: 'calc.js', old: 'return n;', new: 'return Math.abs(n);', needs_plan: true, todo: 'abs is never negative' },
  ],
  destructive: [{ command: 'git push --force origin main', when: 'start', instead: 'git status' }],
});

/**
 * Drives a simulated agent: each step hands it the harness's answer to its previous call and returns its next
 * call. The answers pile up as the view would (tool results, `[harness]` notes as user messages).
 */
function agentFor(names: string[], tools = ALL_TOOLS) {
  const script = createSimulatedAgent({ traits: traitsOf(names), simulation, testCmd: 'npm test', tools, texts: harnessTexts(rules) });
  const view: ChatMessage[] = [{ role: 'system', content: rules.systemPrompt }];
  let call = 0;
  return (...lastResults: string[]) => {
    view.push(
      ...lastResults.map(
        (content): ChatMessage => (content.startsWith('[harness]') ? { role: 'user', content } : { role: 'tool', tool_call_id: `c${call}`, content }),
      ),
    );
    return firstCall(script(view, { call: call++, lastResults }));
  };
}

function firstCall(reply: ScriptedReply): { name: string; args: Record<string, string> } {
  if (reply instanceof Error || !reply.calls?.[0]) throw new Error('expected a tool call');
  return { name: reply.calls[0].name, args: reply.calls[0].args as Record<string, string> };
}

describe('simulated models react to what the harness sends back', () => {
  it('finish-without-verifying claims done after its edit, and runs the tests only when the gate refuses', () => {
    const next = agentFor(['finish-without-verifying']);
    expect(next('task')).toMatchObject({ name: 'read_file' });
    expect(next('[calc.js: lines 1-3]')).toMatchObject({ name: 'edit_file', args: { new: 'a + b' } });
    expect(next('Edit applied.')).toMatchObject({ name: 'finish' });
    expect(next(REFUSAL)).toMatchObject({ name: 'run', args: { command: 'npm test' } });
    expect(next('exit=1\nAssertionError: double doubles')).toMatchObject({ name: 'edit_file', args: { new: 'x * 2' } });
  });

  it('repeat-failing-command re-runs a failing command until a stall nudge, then reads the output', () => {
    const next = agentFor(['repeat-failing-command']);
    next('task');
    next('[calc.js]');
    expect(next('Edit applied.')).toMatchObject({ name: 'run' });
    const failure = 'exit=1\nAssertionError: double doubles';
    expect(next(failure)).toMatchObject({ name: 'run', args: { command: 'npm test' } });
    expect(next(failure)).toMatchObject({ name: 'run', args: { command: 'npm test' } });
    expect(next(failure, NUDGE)).toMatchObject({ name: 'edit_file', args: { new: 'x * 2' } });
  });

  it('syntax-breaking-edit writes a broken edit first and retries when the guard rejects it', () => {
    const next = agentFor(['syntax-breaking-edit']);
    next('task');
    expect(next('[calc.js]')).toMatchObject({ name: 'edit_file', args: { new: 'a + (b' } });
    expect(next('Edit rejected, file unchanged. Syntax error:\ncalc.js:1:9: SyntaxError')).toMatchObject({ name: 'edit_file', args: { new: 'a + b' } });
  });

  it('without edit_file it edits through the shell, and debugs the SyntaxError the tests print', () => {
    const next = agentFor(['syntax-breaking-edit'], ['run', 'finish']);
    expect(next('task')).toMatchObject({ name: 'run', args: { command: 'cat -n calc.js' } });
    const broken = next('exit=0\n 1 add');
    expect(broken.args.command).toContain("node - <<'REIN_EDIT'");
    expect(next('exit=0\nedited calc.js')).toMatchObject({ name: 'run', args: { command: 'npm test' } });
    expect(next('exit=1\nSyntaxError: Unexpected token')).toMatchObject({ name: 'run', args: { command: 'cat -n calc.js' } });
    expect(next('exit=0\n 1 a + (b').args.command).toContain('"a + (b"');
  });

  it('plan-dependent does the unseen requirement when the todo list the harness echoes shows it open, and ticks it off before finishing', () => {
    const planned = agentFor(['plan-dependent']);
    planned('task');
    expect(planned('[calc.js]')).toMatchObject({ name: 'update_todo' });
    expect(planned('Todo:\n[ ] add adds\n[ ] abs is never negative')).toMatchObject({ name: 'edit_file', args: { new: 'a + b' } });
    expect(planned('Edit applied.')).toMatchObject({ name: 'edit_file', args: { new: 'return Math.abs(n);' } });
    expect(planned('Edit applied.')).toMatchObject({ name: 'run' });
    const tick = planned('exit=0\nok');
    expect(tick).toMatchObject({ name: 'update_todo' });
    expect(tick.args).toEqual({
      items: [
        { task: 'add adds', done: true },
        { task: 'abs is never negative', done: true },
      ],
    });
    expect(planned('Todo:\n[x] add adds\n[x] abs is never negative')).toMatchObject({ name: 'finish' });
  });

  it('plan-dependent forgets a requirement the harness does not show back (no todo tool, or a todo tool that does not echo the list)', () => {
    const unplanned = agentFor(['plan-dependent'], ['read_file', 'grep', 'edit_file', 'run', 'finish']);
    unplanned('task');
    expect(unplanned('[calc.js]')).toMatchObject({ name: 'edit_file', args: { new: 'a + b' } });
    expect(unplanned('Edit applied.')).toMatchObject({ name: 'run' });
    expect(unplanned('exit=0\nok')).toMatchObject({ name: 'finish' });

    const silent = agentFor(['plan-dependent']);
    silent('task');
    expect(silent('[calc.js]')).toMatchObject({ name: 'update_todo' });
    expect(silent('Saved.')).toMatchObject({ name: 'edit_file', args: { new: 'a + b' } });
    expect(silent('Edit applied.')).toMatchObject({ name: 'run' });
    expect(silent('exit=0\nok')).toMatchObject({ name: 'finish' });
  });

  it('plan-dependent reads its list back from a summary or from a list an earlier run left, wherever it is newest', () => {
    const fromSummary = agentFor(['plan-dependent'], ['read_file', 'grep', 'edit_file', 'run', 'finish']);
    fromSummary('task');
    fromSummary('[calc.js]');
    expect(
      fromSummary('Edit applied.', '[Summary of earlier work]\nedited calc.js\n\nTodo list (kept by the harness):\n[x] add adds\n[ ] abs is never negative'),
    ).toMatchObject({ name: 'edit_file', args: { new: 'return Math.abs(n);' } });

    const resumed = agentFor(['plan-dependent'], ['read_file', 'grep', 'edit_file', 'run', 'finish']);
    resumed('Fix calc.\n\nTodo list left by an earlier session on this workspace (.rein/progress.json):\n[ ] abs is never negative');
    expect(resumed('[calc.js]')).toMatchObject({ name: 'edit_file', args: { new: 'a + b' } });
    expect(resumed('Edit applied.')).toMatchObject({ name: 'edit_file', args: { new: 'return Math.abs(n);' } });

    const ticked = agentFor(['plan-dependent'], ['read_file', 'grep', 'edit_file', 'run', 'finish']);
    ticked('Todo:\n[ ] add adds\n[ ] abs is never negative', 'Todo:\n[ ] add adds\n[x] abs is never negative');
    expect(ticked('[calc.js]')).toMatchObject({ name: 'edit_file', args: { new: 'a + b' } });
    expect(ticked('Edit applied.')).toMatchObject({ name: 'run' });
  });

  it('destructive-commands takes the safe route when the policy blocks it', () => {
    const next = agentFor(['destructive-commands']);
    expect(next('task')).toMatchObject({ name: 'run', args: { command: 'git push --force origin main' } });
    expect(next('Blocked by policy: git push publishes work outside the workspace')).toMatchObject({ name: 'run', args: { command: 'git status' } });
  });

  it('writes a todo list first when the plan phase refuses its edit (strict preset)', () => {
    const next = agentFor(['careful']);
    next('task');
    next('[calc.js]');
    expect(next('Tool error: edit_file is not allowed in the plan phase. Allowed here: read_file, grep, run, update_todo, finish.')).toMatchObject({
      name: 'update_todo',
    });
    expect(next('Todo:\n[ ] add adds')).toMatchObject({ name: 'edit_file', args: { new: 'a + b' } });
  });

  it('its shell edit replaces the text once, literally, and fails when the text is missing', () => {
    const dir = makeTempDir('rein-shell-edit-', { until: 'exit' });
    writeFileSync(join(dir, 'f.py'), 'x = "$HOME" + \'a\'\nprint(`y`)\n');
    execFileSync('bash', ['-c', shellEdit('f.py', '"$HOME" + \'a\'', '"${b}" + \'c\' # $1')], { cwd: dir });
    expect(readFileSync(join(dir, 'f.py'), 'utf8')).toBe('x = "${b}" + \'c\' # $1\nprint(`y`)\n');
    expect(() => execFileSync('bash', ['-c', shellEdit('f.py', 'not there', 'z')], { cwd: dir, stdio: 'pipe' })).toThrow();
    rmSync(dir, { recursive: true, force: true });
  });
});
