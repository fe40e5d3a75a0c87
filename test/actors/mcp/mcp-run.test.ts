import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openMcpHub } from '../../../actors/mcp/hub.js';
import type { Script } from '../../../actors/model/scripted-model.js';
import { type RulesInput, rulesSchema } from '../../../rules/schema.js';
import { policyOf } from '../../../run/parts/sandbox.js';
import { call, reply, runScripted } from '../../../testing/index.js';
import { makeTempDir } from '../../helpers/workspace.js';
import { EVERYTHING } from './mcp-fixtures.js';

const everything = { every: { command: process.execPath, args: [EVERYTHING, 'stdio'] } };

/** A scripted run with the everything server connected the way `rein run` connects it. */
async function runWithServer(rulesInput: RulesInput, script: Script) {
  const rules = rulesSchema.parse({ ...rulesInput, mcp: { servers: everything, ...rulesInput.mcp } });
  const workspace = makeTempDir('rein-mcp-run-ws-');
  const runDir = makeTempDir('rein-mcp-run-dir-');
  const mcp = await openMcpHub({ servers: rules.mcp.servers, root: fs.realpathSync(workspace), policy: policyOf(rules), env: process.env, runDir });
  const pid = mcp.handles[0]!.pid!;
  const run = await runScripted({ workspace, runDir, rules, script, mcp, testCmd: 'true' });
  return { run, pid, runDir };
}

const toolNames = (schemas: unknown[]) => schemas.map((schema) => (schema as { function: { name: string } }).function.name);

describe('MCP tools in a run', () => {
  it("are offered after rein's own, called like them, traced with server and tool, and the server ends with the run", async () => {
    const { run, pid } = await runWithServer({ budgets: { maxSteps: 1 } }, [reply(call('mcp__every__echo', { message: 'from the model' }))]);
    const names = toolNames(run.toolSchemas);
    expect(names.slice(0, 7)).toEqual(['read_file', 'grep', 'edit_file', 'run', 'update_todo', 'finish', 'job']);
    expect(names).toContain('mcp__every__echo');
    const [tool] = run.lines('tool');
    expect(tool).toMatchObject({
      name: 'mcp__every__echo',
      ok: true,
      result: 'Echo: from the model',
      effect: { kind: 'mcp', server: 'every', tool: 'echo', outcome: 'ok' },
    });
    expect(run.lines('mcp_server').map((line) => line.state)).toEqual(['starting', 'ready', 'closing', 'closed']);
    expect(run.lines('mcp_tools')[0]).toMatchObject({ change: 'offered', mode: 'all' });
    expect(() => process.kill(pid, 0)).toThrow();
  });

  it('a phase allows them by pattern; a call outside the pattern is refused with what is allowed', async () => {
    const { run } = await runWithServer({ budgets: { maxSteps: 1 }, phases: { plan: { tools: ['read_file', 'mcp__every__e*'] } } }, [
      reply(call('mcp__every__echo', { message: 'ok' }), call('mcp__every__get-sum', { a: 1, b: 2 })),
    ]);
    const [echo, sum] = run.lines('tool');
    expect(echo).toMatchObject({ ok: true });
    expect(sum).toMatchObject({
      ok: false,
      result: 'Tool error: mcp__every__get-sum is not allowed in the plan phase. Allowed here: read_file, mcp__every__echo.',
    });
  });

  it('the approval rules apply to them by name pattern', async () => {
    const { run } = await runWithServer({ budgets: { maxSteps: 1 }, approvals: { deny: ['mcp__every__get-*'] } }, [
      reply(call('mcp__every__echo', { message: 'ok' }), call('mcp__every__get-sum', { a: 1, b: 2 })),
    ]);
    const [echo, sum] = run.lines('tool');
    expect(echo).toMatchObject({ ok: true, result: 'Echo: ok' });
    expect(sum).toMatchObject({ ok: false, name: 'mcp__every__get-sum' });
    expect(String(sum!.result)).toMatch(/mcp__every__get-\*/);
  });

  it('results are secret-masked like any tool result', async () => {
    const token = `ghp_${'a1B2'.repeat(9)}`;
    const { run } = await runWithServer({ budgets: { maxSteps: 1 } }, [reply(call('mcp__every__echo', { message: `key ${token}` }))]);
    const [tool] = run.lines('tool');
    expect(String(tool!.result)).not.toContain(token);
    expect(run.lines('secrets_masked')).toHaveLength(1);
  });

  it('the stall detector sees repeated identical MCP calls', async () => {
    const { run } = await runWithServer({ budgets: { maxSteps: 25 } }, () => reply(call('mcp__every__get-sum', { a: 1, b: 1 })));
    expect(run.output.status).toBe('stalled');
    expect(run.lines('stall').map((line) => line.rule)).toContain('repeatedAction');
  });

  it('many tools: only find_tools is sent, and what it finds is appended at the end, the prefix unchanged', async () => {
    const { run, runDir } = await runWithServer({ budgets: { maxSteps: 3 }, mcp: { toolSearchShare: 0.001 } }, (_messages, context) =>
      context.call === 0 ? reply(call('find_tools', { query: 'echo back the input' })) : reply(call('mcp__every__echo', { message: `step ${context.call}` })),
    );
    const names = toolNames(run.toolSchemas);
    expect(names.slice(0, 8)).toEqual(['read_file', 'grep', 'edit_file', 'run', 'update_todo', 'finish', 'job', 'find_tools']);
    expect(names.slice(8)[0]).toBe('mcp__every__echo');
    expect(run.lines('mcp_tools').map((line) => [line.change, line.mode])).toEqual([
      ['offered', 'search'],
      ['found', undefined],
    ]);
    expect(run.lines('tool').map((line) => [line.name, line.ok])).toEqual([
      ['find_tools', true],
      ['mcp__every__echo', true],
      ['mcp__every__echo', true],
    ]);
    expect(JSON.parse(fs.readFileSync(path.join(runDir, 'mcp-found.json'), 'utf8'))[0]).toBe('mcp__every__echo');
  });
});
