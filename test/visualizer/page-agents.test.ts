import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { scriptedModelSource } from '../../actors/model/model-source.js';
import type { ScriptedReply } from '../../actors/model/scripted-model.js';
import { startRun } from '../../run/start-run.js';
import { call, removeTempDirs, reply, rulesSchema, runScripted } from '../../testing/index.js';
import { agentText, budgetUse, childSummaries, parentLink } from '../../visualizer/page/agent-links.js';
import { toEntry } from '../../visualizer/page/entries.js';
import { agentRequest, createAgentPages } from '../../visualizer/server/agent-pages.js';
import { withLiveViz } from '../../visualizer/server/live-viz.js';
import { renderReplayPage } from '../../visualizer/server/replay-page.js';
import { startVizServer } from '../../visualizer/server/viz-server.js';
import { writeFiles } from '../helpers/workspace.js';
import { launchChromium, readLines, tempDir, waitForText } from './browser.js';

afterEach(() => removeTempDirs());

const files = { 'src/mean.py': 'def mean(xs):\n    return sum(xs) / len(xs)\n' };
const explorer = { description: 'Finds where things are in the code', readOnly: true, budget: { share: 0.5, maxSteps: 4 } };
const rulesInput = { agents: { explorer }, verification: { gate: false }, phases: { plan: { enabled: false } }, budgets: { maxSteps: 20 } };
const parentScript = [
  reply(call('delegate', { tasks: [{ agent: 'explorer', task: 'Where is mean() defined?' }] })),
  reply(call('finish', { summary: 'done' })),
];

async function delegatingRun() {
  return runScripted({
    files,
    rules: rulesInput,
    script: parentScript,
    agentScripts: { explorer: [reply(call('grep', { pattern: 'def mean' })), reply(call('finish', { summary: 'mean() is in src/mean.py' }))] },
  });
}

describe('what the page knows of a run’s children (visualizer/page/agent-links.ts, visualizer/server/agent-pages.ts)', () => {
  it('sums each child from its agent lines: its page, its caps, its use, how it ended', async () => {
    const run = await delegatingRun();
    const entries = readLines(join(run.runDir, 'trace.jsonl')).map(toEntry);
    const callId = String(run.lines('agent')[0]!.callId);
    const [child, ...more] = childSummaries(entries, callId);
    expect(more).toEqual([]);
    expect(child).toMatchObject({ agent: 'explorer', status: 'done', steps: 2, caps: { steps: 4 }, depth: 1 });
    expect(child!.href).toMatch(/^agents\/[\w-]+-explorer\/$/);
    expect(child!.tokens).toBe(run.output.agents![1]!.usage.promptTokens + run.output.agents![1]!.usage.completionTokens);
    expect(budgetUse(child!)).toMatch(/^explorer: 2 of 4 steps, [\d,]+ tokens · done$/);
    expect(childSummaries(entries, 'another-call')).toEqual([]);
    const start = entries.find((entry) => entry.kind === 'agent' && entry.data.event === 'start')!;
    expect(agentText(start.data)).toBe('explorer started (cap 4 steps)');
    // The child's start line names its parent: its page links two folders up.
    const childEntries = readLines(join(run.runDir, child!.href, 'trace.jsonl')).map(toEntry);
    expect(parentLink(childEntries[0]!)).toEqual({ href: '../../', text: '← parent run (this is agent “explorer”, depth 1)' });
    expect(parentLink(entries[0]!)).toBeNull();
  });

  it('a running child reads as running; a refused one says why and has no page', () => {
    const line = (data: Record<string, unknown>) =>
      toEntry({ kind: 'agent', agent: 'a', child: '1:c:0', callId: 'c', depth: 1, runDir: '/r/agents/1-c-0-a', ...data }, 0);
    const [running] = childSummaries([line({ event: 'start', caps: { steps: 3, seconds: 9 } })]);
    expect(budgetUse(running!)).toBe('a: cap 3 steps · running');
    const [refused] = childSummaries([line({ event: 'refused', reason: 'the parent has 1 step left' })]);
    expect(budgetUse(refused!)).toBe('a: not started · the parent has 1 step left');
  });

  it('finds a child only by a name under agents/ that holds a trace: no other file is reachable', async () => {
    const run = await delegatingRun();
    const name = String(run.lines('agent')[0]!.runDir).split('/').pop()!;
    expect(agentRequest(run.runDir, `/agents/${name}/page`)).toMatchObject({
      what: 'page',
      run: { runDir: join(run.runDir, 'agents', name), base: `/agents/${name}/` },
    });
    expect(agentRequest(run.runDir, `/agents/${name}/`)?.what).toBe('loader');
    expect(agentRequest(run.runDir, `/agents/${name}/events`)?.what).toBe('events');
    for (const path of [
      `/agents/../${name}/page`,
      '/agents/nobody/page',
      `/agents/${name}/trace.jsonl`,
      `/other/${name}/page`,
      `/agents/${name}/agents/x/page`,
      '/agents/page',
    ])
      expect(agentRequest(run.runDir, path), path).toBeNull();
  });
});

describe('children in the browser: the parent’s page links to each child’s chart and back', () => {
  let browser: Browser;
  const dir = tempDir('rein-viz-agents-');
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    dir.remove();
  });

  async function openChild(page: Page): Promise<void> {
    await page.locator('.row', { hasText: 'explorer started' }).first().click();
    await page.locator('.detail a.agent-link').click();
    await page.waitForURL(/\/agents\/[\w-]+-explorer\/$/);
    await page.waitForSelector('#app.ready');
  }

  it('replayed: from the delegate step to the child’s chart (its budget use shown), and back', { timeout: 120_000 }, async () => {
    const run = await delegatingRun();
    const tracePath = join(run.runDir, 'trace.jsonl');
    const { html } = await renderReplayPage(tracePath, { agentPages: true });
    const server = await startVizServer({ port: 0, page: () => html, agents: createAgentPages(run.runDir) });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await page.goto(server.url);
      await page.waitForSelector('#app.ready');
      // The delegate call's own row links to its child, with the child's use of its caps.
      await page
        .locator('.row', { hasText: /tooldelegate \{/ })
        .first()
        .click();
      await waitForText(page, '.detail .agent-links', 'explorer: 2 of 4 steps');
      await waitForText(page, '.detail .agent-links', '· done');
      await openChild(page);
      await waitForText(page, '.top .task', 'Where is mean() defined?');
      await waitForText(page, '.top .parent-link', 'parent run (this is agent “explorer”');
      // The child's gauges measure its own cap: 2 of 4 steps.
      await waitForText(page, '.gauges', '2 / 4');
      await page.locator('.top .parent-link').click();
      await page.waitForURL((url) => url.pathname === '/');
      await page.waitForSelector('#app.ready');
      await waitForText(page, '.top .task', run.lines('start')[0]!.task as string);
      // Without the tab's session the child's page is refused like the run's.
      const name = String(run.lines('agent')[0]!.runDir).split('/').pop()!;
      expect((await fetch(`${new URL(server.url).origin}/agents/${name}/page`)).status).toBe(403);
    } finally {
      await page.close();
      await server.close();
    }
  });

  it('live: the child’s page follows it while it runs, and shows its end', { timeout: 120_000 }, async () => {
    const workspace = join(dir.path, 'ws');
    const runDir = join(dir.path, 'run');
    mkdirSync(workspace, { recursive: true });
    writeFiles(workspace, files);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const childReplies: ScriptedReply[] = [reply(call('grep', { pattern: 'def mean' })), reply(call('finish', { summary: 'mean() is in src/mean.py' }))];
    // The child's second request waits until the test has opened its page.
    const childScript = async (_messages: unknown, context: { call: number }) => {
      if (context.call > 0) await held;
      return childReplies[Math.min(context.call, 1)]!;
    };
    const rules = rulesSchema.parse(rulesInput);
    const logs: string[] = [];
    const code = await withLiveViz({ port: 0, rules, keepServing: false, log: (text) => logs.push(text) }, async (observers) => {
      const url = /http:\/\/127\.0\.0\.1:\d+\/#key=[\w-]+/.exec(logs.join(''))![0];
      const handle = await startRun({
        workspace,
        runDir,
        task: 'Find mean().',
        testCmd: 'true',
        rules,
        model: scriptedModelSource('parent', parentScript),
        agentModels: { explorer: scriptedModelSource('explorer', childScript) },
        fsync: false,
        ...(observers.onTrace ? { onTrace: observers.onTrace } : {}),
        ...(observers.inspect ? { inspect: observers.inspect } : {}),
      });
      observers.onStart?.(handle);
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(url);
      await page.waitForSelector('#app.ready');
      await openChild(page);
      await waitForText(page, '.top .pill', 'following');
      await waitForText(page, '.rows', 'grep');
      release();
      await waitForText(page, '.top .pill', 'done', 30_000);
      const output = await handle.done;
      await page.close();
      return output.status === 'done' ? 0 : 1;
    });
    expect(code).toBe(0);
  });
});
