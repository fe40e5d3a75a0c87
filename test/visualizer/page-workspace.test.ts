import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSnapshotIndex } from '../../run/record/snapshot-index.js';
import { writeForkRunDir } from '../../run/snapshots/fork-run-dir.js';
import { chartOf, openSnapshotRun, stepSnapshot } from '../../run/snapshots/step-snapshots.js';
import { call, reply, runScripted } from '../../testing/index.js';
import { renderReplayPage } from '../../visualizer/server/replay-page.js';
import { launchChromium, readLines, scrubTo, tempDir } from './browser.js';

// A replayed run with workspace snapshots: the step panel and a fork's link to its origin, in headless Chromium.
describe('the replay page of a run with workspace snapshots', () => {
  const dir = tempDir('rein-viz-workspace-');
  let browser: Browser;
  let page: Page;
  let runDir: string;
  let forkDir: string;
  let lines: Array<Record<string, unknown>>;
  let previousState: string | undefined;

  beforeAll(async () => {
    previousState = process.env.XDG_STATE_HOME;
    process.env.XDG_STATE_HOME = join(dir.path, 'state');
    const workspace = join(dir.path, 'ws');
    mkdirSync(join(workspace, 'd'), { recursive: true });
    writeFileSync(join(workspace, 'd', 'c'), 'c\n');
    const run = await runScripted({
      workspace,
      testCmd: 'true',
      script: [
        reply(call('run', { command: 'printf new > a' })),
        reply(call('run', { command: 'rm d/c && printf x > b' })),
        reply(call('finish', { summary: 'done' })),
      ],
    });
    runDir = run.runDir;
    lines = readLines(join(runDir, 'trace.jsonl'));
    const origin = openSnapshotRun(runDir);
    const target = stepSnapshot(origin, 1);
    forkDir = join(dir.path, 'fork');
    writeForkRunDir({ run: origin, target, chart: chartOf(origin, target), forkDir, changes: { workspace, model: 'other' } });
    browser = await launchChromium();
    const htmlPath = join(dir.path, 'run.html');
    writeFileSync(htmlPath, (await renderReplayPage(join(runDir, 'trace.jsonl'))).html);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`file://${htmlPath}`);
    await page.waitForSelector('#app.ready');
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    if (previousState === undefined) delete process.env.XDG_STATE_HOME;
    else process.env.XDG_STATE_HOME = previousState;
    dir.remove();
  });

  it('shows, for the step picked, its diff against the step before and the start, and the rewind and fork commands', async () => {
    expect(readSnapshotIndex(runDir).map((line) => line.step)).toEqual([0, 1, 2, 3]);
    const stepTwo = lines.findIndex((line) => line.kind === 'model' && line.step === 2);
    await scrubTo(page, stepTwo);
    await page.waitForSelector('.workspace[data-step="2"]');
    const text = await page.$eval('.workspace', (element) => element.textContent ?? '');
    expect(text).toContain('since step 1: +1 ~0 -1');
    expect(text).toContain('since the start: +2 ~0 -1');
    expect(text).toContain('+ b');
    expect(text).toContain('- d/c');
    expect(text).toContain(`npx rein rewind ${runDir} --to 2`);
    expect(text).toContain(`npx rein fork ${runDir} --at 2 --model scripted`);
    const stepOne = lines.findIndex((line) => line.kind === 'model' && line.step === 1);
    await scrubTo(page, stepOne);
    await page.waitForSelector('.workspace[data-step="1"]');
    expect(await page.$eval('.workspace', (element) => element.textContent ?? '')).toContain('since step 0: +1 ~0 -0');
  });

  it("a fork's page names its origin and the command that opens the origin's page", async () => {
    const { html } = await renderReplayPage(join(forkDir, 'trace.jsonl'));
    const forkPage = await browser.newPage();
    const htmlPath = join(dir.path, 'fork.html');
    writeFileSync(htmlPath, html);
    await forkPage.goto(`file://${htmlPath}`);
    await forkPage.waitForSelector('#app.ready');
    const notes = await forkPage.$eval('.notes', (element) => element.textContent ?? '');
    expect(notes).toContain(`A fork of ${runDir} at step 1`);
    expect(notes).toContain(`npx rein viz ${join(runDir, 'trace.jsonl')}`);
    await forkPage.close();
  });
});
