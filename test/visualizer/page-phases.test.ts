import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarnessMachine } from '../../machines/harness-machine.js';
import { rulesSchema } from '../../rules/schema.js';
import { ChartIndex } from '../../visualizer/page/chart-index.js';
import { Timeline } from '../../visualizer/page/timeline.js';
import { renderReplayPage } from '../../visualizer/server/replay-page.js';
import { buildStatechartGraph } from '../../visualizer/server/statechart-graph.js';
import { launchChromium, readLines, recordDemoTrace, recordRoughTrace, scrubTo, settled, sizesOnScreen, tempDir, waitForText, watchPage } from './browser.js';

/** Clicks an arrow where a person would: on its line, halfway along. */
async function clickEdge(page: Page, id: string): Promise<void> {
  const point = await page.$eval(`svg.chart .edge[data-id="${id}"] .hit`, (path) => {
    const line = path as SVGPathElement;
    const at = line.getPointAtLength(line.getTotalLength() / 2);
    const screen = new DOMPoint(at.x, at.y).matrixTransform(line.getScreenCTM()!);
    return { x: screen.x, y: screen.y };
  });
  await page.mouse.click(point.x, point.y);
}

/** Rectangles that overlap on screen. */
function overlaps(a: DOMRect | { left: number; right: number; top: number; bottom: number }, b: typeof a): boolean {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

async function timelineOf(lines: Array<Record<string, unknown>>): Promise<Timeline> {
  const timeline = new Timeline(new ChartIndex(await buildStatechartGraph(createHarnessMachine(rulesSchema.parse(lines[0]!.rules)))));
  lines.forEach((line) => {
    timeline.append(line);
  });
  return timeline;
}

// The replay pages of a demo run (a gate refusal) and a rough run (a blocked command, a stall nudge), in Chromium at 1280×800.
describe('the chart at the level of phases', () => {
  const dir = tempDir('rein-viz-phases-');
  let browser: Browser;
  let page: Page;
  let watched: ReturnType<typeof watchPage>;
  let demo: Array<Record<string, unknown>>;
  let demoTimeline: Timeline;
  let _roughPath: string;
  let roughTimeline: Timeline;

  beforeAll(async () => {
    const [demoPath, rough, launched] = await Promise.all([
      recordDemoTrace(join(dir.path, 'demo')),
      recordRoughTrace(join(dir.path, 'rough')),
      launchChromium(),
    ]);
    browser = launched;
    _roughPath = rough;
    demo = readLines(demoPath);
    [demoTimeline, roughTimeline] = await Promise.all([timelineOf(demo), timelineOf(readLines(rough))]);
    writeFileSync(join(dir.path, 'demo.html'), (await renderReplayPage(demoPath)).html);
    writeFileSync(join(dir.path, 'rough.html'), (await renderReplayPage(rough)).html);
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    watched = watchPage(page);
    await page.goto(`file://${join(dir.path, 'demo.html')}`);
    await page.waitForSelector('#app.ready[data-level="phases"]');
    await settled(page);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    dir.remove();
  });

  it('opens on the phases: every phase name and arrow label on screen is at least 11 px, all of them in view', async () => {
    const refusal = demoTimeline.entries.findIndex((entry) => entry.kind === 'finish' && entry.data.allowed === false);
    for (const index of [0, refusal, demoTimeline.length - 1]) {
      await scrubTo(page, index);
      await settled(page);
      const names = await sizesOnScreen(page, 'svg.chart .node.phase .title');
      expect(names.map((name) => name.text).sort(), `index ${index}`).toEqual(['build', 'fix', 'plan', 'verify']);
      const labels = await sizesOnScreen(page, 'svg.chart .edge .label');
      expect(labels.map((label) => label.text).join(' ')).toContain('todoWritten');
      for (const shown of [...names, ...labels]) expect(shown.px, `${shown.text} at index ${index}`).toBeGreaterThanOrEqual(11);
    }
    // The moment the README shows: the gate has just refused a finish.
    await scrubTo(page, refusal);
    await settled(page);
    const screenshot = join(dir.path, 'visualizer.png');
    await page.screenshot({ path: screenshot });
    if (process.env.REIN_VIZ_SCREENSHOT) copyFileSync(screenshot, process.env.REIN_VIZ_SCREENSHOT);
  });

  it('keeps the why strip off every title and label, and every gauge label whole', async () => {
    for (const level of ['phases', 'phases:verify', 'whole']) {
      if (level === 'phases:verify') await page.click('svg.chart .node.phase[data-id="verify"]');
      if (level === 'whole') await page.click('.chart-tools button:text("All states")');
      await page.waitForSelector(`#app[data-level="${level}"]`);
      await settled(page);
      const found = await page.evaluate(() => {
        const why = document.querySelector('.why')!.getBoundingClientRect();
        const chart = document.querySelector('svg.chart')!.getBoundingClientRect();
        const titles = [...document.querySelectorAll('svg.chart .title, svg.chart .edge .label')]
          .map((element) => ({ text: element.textContent ?? '', box: element.getBoundingClientRect() }))
          .filter(
            ({ box, text }) => text && box.width > 0 && box.bottom > chart.top && box.top < chart.bottom && box.right > chart.left && box.left < chart.right,
          );
        const gauges = [...document.querySelectorAll('.gauge .label')].map((label) => ({
          text: label.textContent,
          cut: label.scrollWidth > label.clientWidth,
        }));
        return {
          why: { left: why.left, right: why.right, top: why.top, bottom: why.bottom },
          titles: titles.map(({ text, box }) => ({ text, box: { left: box.left, right: box.right, top: box.top, bottom: box.bottom } })),
          gauges,
        };
      });
      expect(found.titles.length, level).toBeGreaterThan(3);
      for (const title of found.titles) expect(overlaps(found.why, title.box), `${level}: ${title.text}`).toBe(false);
      expect(found.gauges).toEqual(['Steps', 'Time', 'Context', 'Tokens'].map((text) => ({ text, cut: false })));
    }
    await page.click('.chart-tools button:text("Phases")');
    await page.waitForSelector('#app[data-level="phases"]');
  });

  it('marks the active phase with what it is doing and its counts, and ticks the exit guard that just held', async () => {
    const exit = demoTimeline.entries.findIndex((entry) => entry.kind === 'transition' && entry.data.guard === 'testFailed');
    await scrubTo(page, exit);
    expect(await page.$eval('svg.chart .node.phase.active', (node) => (node as SVGGElement).dataset.id)).toBe('fix');
    await waitForText(page, 'svg.chart .edge.taken[data-id="verify->fix"] .label .hit', '✓ testFailed');
    // Counts: the times each phase was entered and the model calls it made, up to this moment.
    const steps = (phase: string) =>
      demoTimeline.entries.slice(0, exit + 1).filter((entry) => entry.kind === 'model' && demoTimeline.stateAt(entry.index)?.startsWith(`${phase}.`)).length;
    expect(await page.textContent('svg.chart .node.phase[data-id="verify"] .counts')).toBe(
      `1 visit · ${steps('verify')} ${steps('verify') === 1 ? 'step' : 'steps'}`,
    );
    expect(await page.textContent('svg.chart .node.phase[data-id="plan"] .counts')).toBe(`1 visit · ${steps('plan')} steps`);
    const refusal = demoTimeline.entries.findIndex((entry) => entry.kind === 'finish' && entry.data.allowed === false);
    await scrubTo(page, refusal);
    expect(await page.textContent('svg.chart .node.phase.active .line')).toBe('● afterTools');
    await waitForText(page, 'svg.chart .edge.refused .label', '✗ tests passed since the last edit');
  });

  it('opens a phase on click and lists the times it was entered; its title, the Phases button or Escape close it', async () => {
    await page.click('svg.chart .node.phase[data-id="verify"]');
    await page.waitForSelector('#app[data-level="phases:verify"]');
    expect(await page.locator('svg.chart .node[data-id="verify.think"]').count()).toBe(1);
    expect(await page.locator('svg.chart .node[data-id="build.think"]').count()).toBe(0);
    await waitForText(page, '.scope-label', 'entered verify');
    const entries = demoTimeline.entries.filter(
      (entry) => entry.kind === 'transition' && String(entry.data.to).startsWith('verify.') && !String(entry.data.from).startsWith('verify.'),
    );
    expect(entries.length).toBe(2);
    await waitForText(page, '.events .count', `${entries.length} / ${demoTimeline.length}`);
    const rows = await page.$$eval('.rows .row', (elements) => elements.map((row) => Number((row as HTMLElement).dataset.index)).sort((a, b) => a - b));
    expect(rows).toEqual(entries.map((entry) => entry.index));
    await page.click('.scope .chip');
    const inside = demoTimeline.entries.filter((entry) =>
      entry.kind === 'transition' ? String(entry.data.to).startsWith('verify.') : demoTimeline.stateAt(entry.index)?.startsWith('verify.'),
    );
    await waitForText(page, '.events .count', `${inside.length} / ${demoTimeline.length}`);
    await page.click('svg.chart .node.compound.open[data-id="verify"] .title');
    await page.waitForSelector('#app[data-level="phases"]');
    await page.click('svg.chart .node.phase[data-id="fix"]');
    await page.waitForSelector('#app[data-level="phases:fix"]');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#app[data-level="phases"]');
    await page.keyboard.press('Escape');
    await page.waitForSelector('.scope', { state: 'hidden' });
  });

  it("lists the times an arrow was taken when it is clicked; the chart's background shows everything again", async () => {
    await clickEdge(page, 'verify->fix');
    await waitForText(page, '.scope-label', 'took verify → fix');
    const taken = demoTimeline.entries.filter((entry) => entry.kind === 'transition' && demoTimeline.matchOf(entry).transition?.edge === 'verify->fix');
    await waitForText(page, '.events .count', `${taken.length} / ${demoTimeline.length}`);
    // The count is drawn before the rows: wait for the list to be redrawn too.
    await page.waitForFunction((count) => document.querySelectorAll('.rows .row').length === count, taken.length);
    expect(await page.$$eval('.rows .row', (elements) => elements.map((row) => row.textContent ?? ''))).toEqual([
      expect.stringContaining('verify → fix  ✓ testFailed'),
    ]);
    const empty = await page.evaluate(() => {
      const chart = document.querySelector('svg.chart')!.getBoundingClientRect();
      for (let y = chart.top + 10; y < chart.bottom; y += 17) {
        for (let x = chart.left + 10; x < chart.right; x += 17) if (document.elementFromPoint(x, y) === document.querySelector('svg.chart')) return { x, y };
      }
      return null;
    });
    await page.mouse.click(empty!.x, empty!.y);
    await page.waitForSelector('.scope', { state: 'hidden' });
    expect(watched.errors).toEqual([]);
  });

  it('a clicked button gives its focus back: Space plays and pauses, it does not press that button again', async () => {
    await scrubTo(page, 5);
    await page.click('.scrubber button[aria-label^="One event on"]');
    await page.waitForSelector('#app[data-index="6"]');
    await page.keyboard.press('Space');
    await page.waitForSelector('.scrubber .play[data-playing="true"]');
    expect(await page.textContent('.scrubber .play')).toBe('Pause');
    await page.keyboard.press('Space');
    await page.waitForSelector('.scrubber .play[data-playing="false"]');
    // Reached with the keyboard, a button keeps Space: it presses that button.
    await scrubTo(page, 5);
    await page.focus('.scrubber button[aria-label^="One event on"]');
    await page.keyboard.press('Space');
    await page.waitForSelector('#app[data-index="6"]');
    expect(await page.getAttribute('.scrubber .play', 'data-playing')).toBe('false');
  });

  describe('a rough run', () => {
    let rough: Page;
    beforeAll(async () => {
      rough = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await rough.goto(`file://${join(dir.path, 'rough.html')}`);
      await rough.waitForSelector('#app.ready');
    });

    it('a stall reads as the rule that fired, what it saw, the count and the nudge; its row lands on the guard that fired', async () => {
      const stall = roughTimeline.entries.find((entry) => entry.kind === 'stall')!;
      // The same failing test run, the same output each time (its timings aside): the same call with the same result.
      expect(stall.data.rule).toBe('repeatedAction');
      const cause = roughTimeline.entries[stall.index - 1]!;
      expect(cause.data).toMatchObject({ kind: 'transition', guard: stall.data.rule, actions: expect.arrayContaining(['nudge']) });
      await rough.fill('.events .search', 'nudge');
      await rough.click(`.rows .row[data-index="${stall.index}"]`);
      await rough.waitForSelector(`#app[data-index="${stall.index}"]`);
      await waitForText(rough, '.why .guards', `✓ [${String(stall.data.rule)}(limit=3)] the same call with the same result 3 times in a row`);
      // The nudge is an eventless transition of the review state, taken in the macrostep the tools' results started.
      expect(cause.data.eventless).toBe(true);
      expect(await rough.textContent('.why .how')).toBe(`${String(cause.data.from)} → ${String(cause.data.to)}  eventless, after tools.done`);
      expect(await rough.textContent('.why .story')).toContain(`${String(stall.data.rule)}: ${String(stall.data.reason)} (3/3) → nudge 1`);
      expect(await rough.textContent('.why .story')).toContain(`nudge sent: “${String(stall.data.message)}”`);
      expect(await rough.textContent('.detail')).toContain('nudge sent to the model');
      await rough.fill('.events .search', '');
    });

    it('a blocked command reads as blocked with the rule that matched, and search finds words in arguments and results', async () => {
      const blocked = roughTimeline.entries.find((entry) => entry.kind === 'tool' && (entry.data.effect as { blocked?: boolean }).blocked)!;
      await rough.fill('.events .search', 'force');
      const row = rough.locator(`.rows .row[data-index="${blocked.index}"]`);
      await row.waitFor();
      expect(await row.getAttribute('class')).toContain('tone-blocked');
      expect(await row.textContent()).toContain('git push --force origin HEAD:main  ⊘ blocked: git push publishes work outside the workspace');
      expect(await row.textContent()).not.toContain('failed');
      // Words only in a result: the test runner's assertion message, printed by `node --test`.
      await rough.fill('.events .search', 'add adds');
      const matching = roughTimeline.entries.filter((entry) => entry.kind !== 'transition' && JSON.stringify(entry.data).toLowerCase().includes('add adds'));
      expect(matching.filter((entry) => entry.kind === 'tool').length).toBeGreaterThan(1);
      await waitForText(rough, '.events .count', `${matching.length} / ${roughTimeline.length}`);
      expect(await rough.$$eval('.rows .row', (rows) => rows.map((element) => (element as HTMLElement).dataset.kind))).toContain('tool');
      await rough.fill('.events .search', '');
      await rough.close();
    });
  });

  it('follows the window the provider turned out to have, and gives time in one format', async () => {
    const at = demo.findIndex((line) => line.kind === 'model' && line.step === 3);
    const injected = [
      ...demo.slice(0, at + 1),
      { i: 1000, t: Number(demo[at]!.t), kind: 'context', action: 'provider_rejected_length', rejectedTokens: 9_120, windowCap: 8_000, attempt: 1, step: 3 },
      ...demo.slice(at + 1),
    ];
    const path = join(dir.path, 'learnt.jsonl');
    writeFileSync(path, injected.map((line) => JSON.stringify(line)).join('\n') + '\n');
    writeFileSync(join(dir.path, 'learnt.html'), (await renderReplayPage(path)).html);
    await page.goto(`file://${join(dir.path, 'learnt.html')}`);
    await page.waitForSelector('#app.ready');
    await waitForText(page, '.gauges', 'of 8,000 (learnt; rules said 32,768)');
    expect(await page.textContent('.gauges .gauge:nth-child(2) .value')).toMatch(/^\d+:\d{2}(\.\d)? \/ 15:00$/);
  });
});
