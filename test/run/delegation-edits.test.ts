import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { call, removeTempDirs, reply, runScripted } from '../../testing/index.js';

afterEach(() => removeTempDirs());

// A child that may only run commands (and finish): whatever it changes, it changes by a command.
const builder = { description: 'Runs commands', tools: ['run'], budget: { share: 0.5 } };

async function runWithChildCommand(command: string) {
  return runScripted({
    files: { 'a.txt': 'one\n' },
    rules: { agents: { builder }, verification: { gate: false } },
    script: [reply(call('delegate', { tasks: [{ agent: 'builder', task: 'Make the files.' }] })), reply(call('finish', { summary: 'done' }))],
    agentScripts: { builder: [reply(call('run', { command })), reply(call('finish', { summary: 'made them' }))] },
  });
}

describe("a child's commands that change files are its parent's edits (run/delegation/workspace-changes.ts)", () => {
  it('the parent leaves plan by editMade when its child only ran a command that changed files', async () => {
    const run = await runWithChildCommand("echo made > made.txt && printf 'two\\n' > a.txt");
    expect(readFileSync(join(run.workspace, 'made.txt'), 'utf8')).toBe('made\n');
    const delegate = run.lines('tool').find((line) => line.name === 'delegate')!;
    expect(delegate.effect).toEqual({ kind: 'edit', path: 'a.txt', applied: true, also: ['made.txt'] });
    // The transition after the delegate call: plan → build by editMade, as for an edit of its own.
    const after = run.trace.slice(run.trace.indexOf(delegate)).find((line) => line.kind === 'transition' && line.guard === 'editMade');
    expect(after).toMatchObject({ guard: 'editMade' });
    expect(String(after?.from)).toMatch(/^plan\./);
    expect(String(after?.to)).toMatch(/^build\./);
    // The child's report tells the parent's model which files changed.
    expect(delegate.result).toContain('made.txt');
    // What it started from is kept beside the child's trace (a resumed child compares with it).
    expect(existsSync(join(String(run.lines('agent')[0]!.runDir), 'workspace-before.json'))).toBe(true);
  });

  it('a command that changed nothing is no edit: the parent stays in plan', async () => {
    const run = await runWithChildCommand('cat a.txt');
    const delegate = run.lines('tool').find((line) => line.name === 'delegate')!;
    expect(delegate.effect).toEqual({ kind: 'none' });
    expect(run.lines('transition').some((line) => line.guard === 'editMade')).toBe(false);
  });
});
