import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractiveSummary } from '../../../actors/summarizer.js';
import type { TraceRecord } from '../../../lib/trace/trace-events.js';
import { readJsonLines } from '../../../run/record/jsonl.js';
import { loadRules } from '../../../run/rules-files/load-rules.js';
import { startRun } from '../../../run/start-run.js';
import { call, createScriptedModel, reply } from '../../../testing/index.js';
import { makeTempDir } from '../../helpers/workspace.js';

const MODULE = `
export default {
  verification: { gate: false },
  phases: { plan: { enabled: false } },
  hooks: { preToolUse: [{ function: 'policy', tools: 'run' }, { function: 'flaky', tools: 'run' }] },
};
export const hookFunctions = {
  policy: (event: { call: { args: { command?: string } } }) =>
    event.call.args.command?.startsWith('rm ') ? { decision: 'deny', message: 'no rm from a rules function' } : undefined,
  flaky: (event: { call: { args: { command?: string } } }) => {
    if (event.call.args.command === 'boom') throw new Error('the policy service is down');
    return { decision: 'allow' };
  },
};
`;

describe('hooks as functions of a .ts rules file (actors/hooks/run-hook.ts, run/rules-files/load-rules.ts)', () => {
  it('a function answers like a command; a function that throws fails closed; both are traced', async () => {
    const dir = makeTempDir('rein-hook-fn-');
    const configPath = join(dir, 'rules.ts');
    writeFileSync(configPath, MODULE);
    const loaded = await loadRules({ configPath });
    const workspace = makeTempDir('rein-hook-fn-ws-');
    writeFileSync(join(workspace, 'keep.txt'), 'x');
    const runDir = makeTempDir('rein-hook-fn-run-');
    const model = createScriptedModel([
      reply(call('run', { command: 'rm keep.txt' }), call('run', { command: 'boom' }), call('run', { command: 'echo ok > ok.txt' })),
      reply(call('finish', { summary: 'done' })),
    ]);
    const handle = await startRun({
      workspace,
      runDir,
      task: 't',
      testCmd: 'true',
      rules: loaded.rules,
      hookFunctions: loaded.hookFunctions,
      configPath,
      model: { name: 'scripted', description: 'scripted', createActor: () => model.actor, summarize: extractiveSummary },
      fsync: false,
    });
    expect((await handle.done).status).toBe('done');
    expect(existsSync(join(workspace, 'keep.txt'))).toBe(true);
    expect(existsSync(join(workspace, 'ok.txt'))).toBe(true);
    const trace = readJsonLines<TraceRecord>(join(runDir, 'trace.jsonl')).values;
    const decisions = trace.filter((line) => line.kind === 'approval_decision');
    expect(decisions.map((line) => [line.verdict, String(line.reason)])).toEqual([
      ['deny', 'no rm from a rules function'],
      ['deny', expect.stringContaining('the policy service is down')],
      ['allow', 'the preToolUse hook answered allow'],
    ]);
    expect(trace.filter((line) => line.kind === 'hook').map((line) => line.command)).toContain('function flaky');
  });

  it('a hook naming a function the module does not export stops the rules from loading', async () => {
    const dir = makeTempDir('rein-hook-fn-');
    const configPath = join(dir, 'rules.ts');
    writeFileSync(configPath, `export default { hooks: { runEnd: [{ function: 'notfy' }] } };\nexport const hookFunctions = { notify: () => undefined };\n`);
    await expect(loadRules({ configPath })).rejects.toThrow(/hooks\.runEnd\[0\]\.function: no function "notfy".*did you mean "notify"/);
  });
});
