import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scriptedModelSource } from '../../actors/model/model-source.js';
import { RunInterrupted } from '../../lib/errors.js';
import type { TraceRecord } from '../../lib/trace/trace-events.js';
import { readJsonLines } from '../../run/record/jsonl.js';
import { readRecord } from '../../run/record/transcript.js';
import { type RunOptions, resumeRun, startRun } from '../../run/start-run.js';
import type { Script } from '../../testing/index.js';
import { call, makeTempDir, removeTempDirs, reply, rulesSchema } from '../../testing/index.js';
import { waitUntil } from '../helpers/wait.js';
import { writeFiles } from '../helpers/workspace.js';

afterEach(() => removeTempDirs());

const traceOf = (runDir: string) => readJsonLines<TraceRecord>(join(runDir, 'trace.jsonl')).values;

describe('a run stopped while a child runs', () => {
  it('resumes the child where it was and the parent after it; no call runs twice, nothing is charged twice', async () => {
    const workspace = makeTempDir('rein-ws-');
    writeFiles(workspace, { 'notes.txt': 'the answer is 42\n' });
    const runDir = makeTempDir('rein-run-');
    const rules = rulesSchema.parse({ agents: { explorer: { description: 'reads', readOnly: true } }, verification: { gate: false } });
    const options = (parent: Script, child: Script): RunOptions => ({
      workspace,
      runDir,
      task: 'Find the answer.',
      testCmd: '',
      rules,
      model: scriptedModelSource('parent', parent),
      agentModels: { explorer: scriptedModelSource('explorer', child) },
      fsync: false,
    });
    // The child's second model call never answers: the run is stopped there.
    const hang: Script = (_messages, context) => (context.call === 0 ? reply(call('grep', { pattern: 'answer' })) : new Promise(() => undefined));
    const first = await startRun(options([reply(call('delegate', { tasks: [{ agent: 'explorer', task: 'What is the answer?' }] }))], hang));
    const childDir = join(runDir, 'agents', '1-0-0-explorer');
    await waitUntil(() => traceOf(childDir).some((line) => line.kind === 'tool'), 'the child ran its grep');
    await waitUntil(() => readRecord(join(childDir, 'record.jsonl')).some((message) => message.role === 'tool'), 'the child recorded its result');
    first.interrupt();
    await expect(first.done).rejects.toBeInstanceOf(RunInterrupted);

    const second = await resumeRun(
      options([reply(call('finish', { summary: 'the answer is 42' }))], [reply(call('finish', { summary: 'notes.txt says 42' }))]),
    );
    const output = await second.done;
    expect(output.status).toBe('done');
    const child = traceOf(childDir);
    // The child's grep ran once, before the stop; it continued from its saved state.
    expect(child.filter((line) => line.kind === 'tool' && line.name === 'grep')).toHaveLength(1);
    expect(child.some((line) => line.kind === 'resume')).toBe(true);
    const parent = traceOf(runDir);
    // Started before the stop, continued after it (a stopped child's own end line may reach the closed trace too late).
    const events = parent.filter((line) => line.kind === 'agent').map((line) => line.event);
    expect([events[0], ...events.slice(-2)]).toEqual(['start', 'resume', 'end']);
    expect(parent.find((line) => line.kind === 'tool' && line.name === 'delegate')?.result).toContain('notes.txt says 42');
    // The child's two steps are charged once: the split says so, and adds up.
    expect(output.agents?.find((entry) => entry.agent === 'explorer')).toMatchObject({ runs: 1, steps: 2 });
    const childEnd = child.filter((line) => line.kind === 'end').at(-1) as unknown as { usage: { promptTokens: number } };
    expect(output.agents?.find((entry) => entry.agent === 'explorer')?.usage.promptTokens).toBe(childEnd.usage.promptTokens);
  });
});
