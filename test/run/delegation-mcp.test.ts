import fs from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openMcpHub } from '../../actors/mcp/hub.js';
import type { TraceRecord } from '../../lib/trace/trace-events.js';
import { rulesSchema } from '../../rules/schema.js';
import { policyOf } from '../../run/parts/sandbox.js';
import { readJsonLines } from '../../run/record/jsonl.js';
import { call, makeTempDir, removeTempDirs, reply, runScripted } from '../../testing/index.js';
import { EVERYTHING } from '../actors/mcp/mcp-fixtures.js';

afterEach(() => removeTempDirs());

describe('children and MCP servers (docs/delegation.md, "The boundary holds for children")', () => {
  it('a child gets none of its parent’s MCP tools, even when its agent names them, and starts no server', async () => {
    const rules = rulesSchema.parse({
      mcp: { servers: { every: { command: process.execPath, args: [EVERYTHING, 'stdio'] } } },
      agents: { helper: { description: 'asks the server', tools: ['read_file', 'mcp__every__*'] } },
      verification: { gate: false },
      phases: { plan: { enabled: false } },
    });
    const workspace = makeTempDir('rein-mcp-child-ws-');
    const runDir = makeTempDir('rein-mcp-child-run-');
    const mcp = await openMcpHub({ servers: rules.mcp.servers, root: fs.realpathSync(workspace), policy: policyOf(rules), env: process.env, runDir });
    const run = await runScripted({
      workspace,
      runDir,
      rules,
      mcp,
      testCmd: 'true',
      script: [reply(call('delegate', { tasks: [{ agent: 'helper', task: 'Echo hello.' }] })), reply(call('finish', { summary: 'done' }))],
      agentScripts: { helper: [reply(call('mcp__every__echo', { message: 'hello' })), reply(call('finish', { summary: 'could not' }))] },
    });
    expect(run.output.status).toBe('done');
    const childDir = String(run.lines('agent')[0]!.runDir);
    const child = readJsonLines<TraceRecord>(join(childDir, 'trace.jsonl')).values;
    const parentTools = run.lines('start')[0]!.tools as string[];
    const childTools = child.find((line) => line.kind === 'start')!.tools as string[];
    expect(parentTools).toContain('mcp__every__echo');
    expect(childTools).toEqual(['read_file', 'finish']);
    const [echo] = child.filter((line) => line.kind === 'tool');
    expect(echo).toMatchObject({ name: 'mcp__every__echo', ok: false });
    expect(String(echo!.result)).toContain('unknown tool');
    expect(child.some((line) => line.kind === 'mcp_server' || line.kind === 'mcp_tools')).toBe(false);
    expect(fs.readdirSync(childDir).some((name) => name.startsWith('mcp-'))).toBe(false);
  });
});
