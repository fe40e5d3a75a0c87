import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractiveSummary } from '../../actors/summarizer.js';
import type { TraceRecord } from '../../lib/trace/trace-events.js';
import { readJsonLines } from '../../run/record/jsonl.js';
import { startRun } from '../../run/start-run.js';
import { call, createScriptedModel, reply, rulesSchema } from '../../testing/index.js';
import { withLiveViz } from '../../visualizer/server/live-viz.js';
import { makeTempDir } from '../helpers/workspace.js';
import { launchChromium } from './browser.js';

describe('the live page answers approvals (visualizer/server/page-approvals.ts, visualizer/page/approval-panel.ts)', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('shows the waiting call with Approve / Deny; a POST without the session is refused; Approve runs the call', { timeout: 90_000 }, async () => {
    const workspace = makeTempDir('rein-viz-approval-ws-');
    const runDir = makeTempDir('rein-viz-approval-run-');
    const rules = rulesSchema.parse({ verification: { gate: false }, phases: { plan: { enabled: false } }, approvals: { ask: ['run'] } });
    const model = createScriptedModel([reply(call('run', { command: 'echo approved > out.txt' })), reply(call('finish', { summary: 'done' }))]);
    let url = '';
    const logs: string[] = [];
    const code = await withLiveViz({ port: 0, rules, keepServing: false, log: (text) => logs.push(text) }, async (observers) => {
      url = /http:\/\/127\.0\.0\.1:\d+\/#key=[\w-]+/.exec(logs.join(''))![0];
      const handle = await startRun({
        workspace,
        runDir,
        task: 't',
        testCmd: 'true',
        rules,
        model: { name: 'scripted', description: 'scripted', createActor: () => model.actor, summarize: extractiveSummary },
        fsync: false,
        ...(observers.onTrace ? { onTrace: observers.onTrace } : {}),
        ...(observers.inspect ? { inspect: observers.inspect } : {}),
        answerSources: observers.answerSources ?? [],
      });
      observers.onStart?.(handle);
      const page = await browser.newPage();
      await page.goto(url);
      await page.locator('.approval button.approve').waitFor({ timeout: 60_000 });
      expect(await page.locator('.approval').textContent()).toContain('echo approved > out.txt');
      // Without the tab's session (another page, a script on this machine): refused, nothing answered.
      const base = new URL(url).origin;
      const forged = await fetch(`${base}/approval`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(forged.status).toBe(403);
      expect(existsSync(join(workspace, 'out.txt'))).toBe(false);
      await page.locator('.approval button.approve').click();
      const output = await handle.done;
      await page.close();
      return output.status === 'done' ? 0 : 1;
    });
    expect(code).toBe(0);
    expect(readFileSync(join(workspace, 'out.txt'), 'utf8')).toBe('approved\n');
    const trace = readJsonLines<TraceRecord>(join(runDir, 'trace.jsonl')).values;
    expect(trace.find((line) => line.kind === 'approval_decision')).toMatchObject({ verdict: 'allow', by: 'page' });
  });
});
