import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnswerSource } from '../../actors/approvals/approver.js';
import { extractiveSummary } from '../../actors/summarizer.js';
import { approveCommand } from '../../cli/commands/approve.js';
import { createStatusLine } from '../../cli/status-line.js';
import type { TraceLine, TraceRecord } from '../../lib/trace/trace-events.js';
import { readJsonLines } from '../../run/record/jsonl.js';
import { type RunOptions, resumeRun, startRun } from '../../run/start-run.js';
import { runEvent } from '../../telemetry/event-attributes.js';
import { call, createScriptedModel, type RulesInput, reply, rulesSchema, type Script } from '../../testing/index.js';
import type { Entry } from '../../visualizer/page/entries.js';
import { describeEntry } from '../../visualizer/page/event-format.js';
import { makeTempDir } from '../helpers/workspace.js';

/**
 * Issue 30.6: asks, answers, who answered and how long it took, on every surface, read from the trace lines of
 * real runs: the trace itself, the status line, the visualizer's rows and the OpenTelemetry span events.
 */
const finishing = reply(call('finish', { summary: 'done' }));
const run = (command: string) => call('run', { command });

function options(script: Script, approvals: RulesInput['approvals'], extra: Partial<RunOptions> = {}): RunOptions {
  const model = createScriptedModel(script);
  return {
    workspace: makeTempDir('rein-surfaces-ws-'),
    runDir: makeTempDir('rein-surfaces-run-'),
    task: 't',
    testCmd: 'true',
    rules: rulesSchema.parse({ verification: { gate: false }, phases: { plan: { enabled: false } }, approvals }),
    model: { name: 'scripted', description: 'scripted', createActor: () => model.actor, summarize: extractiveSummary },
    fsync: false,
    approvalPollMs: 10,
    ...extra,
  };
}
const traceOf = (runDir: string) => readJsonLines<TraceRecord>(join(runDir, 'trace.jsonl')).values;
const quiet = { stdout: { write: () => true }, stderr: { write: () => true } };
/** Someone who answers after 60 ms. */
const person = (by: 'terminal' | 'page', verdict: 'allow' | 'deny', remember?: 'command'): AnswerSource => ({
  by,
  ask: () => new Promise((resolve) => setTimeout(() => resolve({ verdict, ...(remember ? { remember } : {}), message: `${by} says ${verdict}` }), 60)),
});

/** Every approval line of these runs, as the trace, the status line, the page and the spans show it. */
function surfaces(lines: TraceRecord[]) {
  const said: string[] = [];
  const status = createStatusLine({ isTTY: false, columns: 200, write: (text: string) => said.push(text) > 0 }, rulesSchema.parse({}));
  const approvals = lines.filter((line) => line.kind === 'approval_ask' || line.kind === 'approval_decision');
  for (const line of approvals) status.onTrace(line as TraceLine);
  return approvals.map((line, index) => ({
    trace: line as Record<string, unknown>,
    status: said[index]!.trim(),
    page: describeEntry({ kind: line.kind, data: line } as unknown as Entry, null).text,
    span: runEvent(line, false)!,
  }));
}

describe('who answered an approval, and how long it took, on every surface (issue 30.6)', () => {
  it('a rule, a person at the terminal, a remembered decision, the page, the headless policy, the timeout and rein approve', async () => {
    const lines: TraceRecord[] = [];
    // Denied by a deny rule; asked and answered at the terminal ("always for this call"); the same call again: remembered.
    const terminal = options(
      [reply(run('rm -rf x'), run('echo a')), reply(run('echo a')), finishing],
      { ask: ['run'], deny: ['run(rm *)'] },
      {
        answerSources: [person('terminal', 'allow', 'command')],
      },
    );
    await (await startRun(terminal)).done;
    lines.push(...traceOf(terminal.runDir));
    const page = options([reply(run('echo p')), finishing], { ask: ['run'] }, { answerSources: [person('page', 'deny')] });
    await (await startRun(page)).done;
    lines.push(...traceOf(page.runDir));
    const policy = options([reply(run('echo b')), finishing], { ask: ['run'], headless: 'deny' });
    await (await startRun(policy)).done;
    lines.push(...traceOf(policy.runDir));
    const silent: AnswerSource = {
      by: 'terminal',
      ask: (_pending, signal) => new Promise((_ok, fail) => signal.addEventListener('abort', () => fail(signal.reason))),
    };
    const timeout = options([reply(run('echo c')), finishing], { ask: ['run'], timeoutSeconds: 0.2 }, { answerSources: [silent] });
    await (await startRun(timeout)).done;
    lines.push(...traceOf(timeout.runDir));
    // Headless: the run parks, `rein approve` answers, `rein resume` goes on.
    const command = options([reply(run('echo d'))], { ask: ['run'] });
    await (await startRun(command)).done.then(() => undefined).catch(() => undefined);
    await approveCommand([command.runDir, '--message', 'fine by me'], quiet);
    await (await resumeRun({ ...options([finishing], { ask: ['run'] }), workspace: command.workspace, runDir: command.runDir })).done;
    lines.push(...traceOf(command.runDir));

    const shown = surfaces(lines);
    const decisions = shown.filter((row) => row.trace.kind === 'approval_decision');
    expect(decisions.map((row) => row.trace.by)).toEqual(['rule', 'terminal', 'remembered', 'page', 'policy', 'timeout', 'command']);
    for (const row of decisions) {
      const by = String(row.trace.by);
      const verb = row.trace.verdict === 'allow' ? 'approved' : 'denied';
      // The status line and the page say who; the span event carries it as an attribute.
      expect(row.status).toContain(`${verb} by ${by}`);
      expect(row.page).toContain(`${verb} by ${by}`);
      expect(row.span.attributes['rein.approval.by']).toBe(by);
      expect(row.span.attributes['rein.approval.verdict']).toBe(row.trace.verdict);
      // How long it took: for every answer someone (or the clock) gave, on all three.
      if (['terminal', 'page', 'policy', 'timeout', 'command'].includes(by)) {
        expect(typeof row.trace.waitedMs, by).toBe('number');
        expect(row.status).toMatch(/ after \d+(\.\d)? s/);
        expect(row.page).toMatch(/ after \d+(\.\d)? s/);
        expect(row.span.attributes['rein.approval.waited_ms']).toBe(row.trace.waitedMs);
      }
    }
    expect(decisions.find((row) => row.trace.by === 'terminal')!.trace.waitedMs).toBeGreaterThanOrEqual(50);
    expect(decisions.find((row) => row.trace.by === 'timeout')!.trace.waitedMs).toBeGreaterThanOrEqual(190);
    expect(decisions.find((row) => row.trace.by === 'terminal')!.status).toContain('(remembered for this command)');
    // The asks: one per call that waited, on every surface, with the call and why.
    const asks = shown.filter((row) => row.trace.kind === 'approval_ask');
    expect(asks).toHaveLength(5);
    for (const row of asks) {
      expect(row.status).toMatch(/waiting for an approval: run \(.+\); call /);
      expect(row.page).toMatch(/run waits for an approval: /);
      expect(row.span).toMatchObject({ name: 'rein.approval_ask', attributes: { 'rein.tool.name': 'run', 'rein.tool.call_id': row.trace.callId } });
    }
  });
});
