import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReplayPage } from '../../visualizer/server/replay-page.js';
import { repoRoot } from '../helpers/cli.js';
import { expectedStates, launchChromium, readLines, recordDemoTrace, scrubTo, settled, sizesOnScreen, tempDir, watchPage } from './browser.js';

interface Rect {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

const rectOf = (page: Page, selector: string): Promise<Rect> =>
  page.$eval(selector, (element) => {
    const { left, top, right, bottom } = element.getBoundingClientRect();
    return { left, top, right, bottom };
  });

function inside(inner: Rect, outer: Rect): boolean {
  return inner.left >= outer.left - 0.5 && inner.right <= outer.right + 0.5 && inner.top >= outer.top - 0.5 && inner.bottom <= outer.bottom + 0.5;
}

async function showLevel(page: Page, button: 'Phases' | 'All states', level: string): Promise<void> {
  await page.click(`.chart-tools button:text("${button}")`);
  await page.waitForSelector(`#app[data-level="${level}"]`);
  await settled(page);
}

// The demo's replay page in Chromium at 1280×800: how "All states" and an open phase are framed, and what the badge says while scrubbing.
describe('the chart framed for reading, and the badge at the scrubbed moment', () => {
  const dir = tempDir('rein-viz-framing-');
  let browser: Browser;
  let page: Page;
  let watched: ReturnType<typeof watchPage>;
  let lines: Array<Record<string, unknown>>;
  let states: string[];
  // Moments to look at: the start, the gate's refusal, a moment in fix, the end.
  let moments: number[];

  beforeAll(async () => {
    const [tracePath, launched] = await Promise.all([recordDemoTrace(join(dir.path, 'demo')), launchChromium()]);
    browser = launched;
    lines = readLines(tracePath);
    states = expectedStates(lines);
    const refusal = lines.findIndex((line) => line.kind === 'finish' && line.allowed === false);
    const inFix = states.findIndex((state) => state.startsWith('fix.'));
    expect(refusal).toBeGreaterThan(0);
    expect(inFix).toBeGreaterThan(0);
    moments = [0, refusal, inFix + 2, lines.length - 1];
    writeFileSync(join(dir.path, 'demo.html'), (await renderReplayPage(tracePath)).html);
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    watched = watchPage(page);
    await page.goto(`file://${join(dir.path, 'demo.html')}`);
    await page.waitForSelector('#app.ready[data-level="phases"]');
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    dir.remove();
  });

  it('"All states" opens on a readable part: every text on screen at least 11 px; Fit then shows every state', async () => {
    for (const index of moments) {
      await scrubTo(page, index);
      await showLevel(page, 'All states', 'whole');
      const shown = await sizesOnScreen(page, 'svg.chart text');
      expect(shown.length, `index ${index}`).toBeGreaterThan(4);
      for (const text of shown) expect(text.px, `"${text.text}" at index ${index}`).toBeGreaterThanOrEqual(11);
      // The state the run is in is among what is shown, and so is the title of its phase: which phase it is shows.
      if (states[index]) expect(shown.map((text) => text.text)).toContain(states[index]!.split('.').at(-1));
      const phase = states[index]?.includes('.') ? states[index]!.split('.')[0]! : null;
      if (phase) {
        // Its own title when it fits around the state at that size; else the tag pinned to the chart's corner.
        const title = inside(await rectOf(page, `svg.chart .node.compound[data-id="${phase}"] > .title`), await rectOf(page, '.chart-area'));
        const tag = await page.$eval('.chart-area .phase-tag', (element) => ((element as HTMLElement).hidden ? null : element.textContent));
        expect(title ? null : tag, `the phase of ${states[index]} at index ${index}`).toBe(title ? null : phase);
        expect(title && tag !== null, `the tag shows only while the title is out of view (index ${index})`).toBe(false);
      }
      // Following on while scrubbing keeps it readable.
      await scrubTo(page, Math.min(index + 7, lines.length - 1));
      await settled(page);
      for (const text of await sizesOnScreen(page, 'svg.chart text')) expect(text.px, `"${text.text}" after index ${index}`).toBeGreaterThanOrEqual(11);
      await showLevel(page, 'Phases', 'phases');
    }
    await page.screenshot({ path: join(dir.path, 'phases.png') });
    // The rest is a zoom away: Fit puts every state of the machine inside the chart.
    await showLevel(page, 'All states', 'whole');
    await page.click('.chart-tools button:text("Fit")');
    await settled(page);
    const chart = await rectOf(page, 'svg.chart');
    const boxes = await page.$$eval('svg.chart .node > .box', (elements) =>
      elements.map((element) => {
        const { left, top, right, bottom } = element.getBoundingClientRect();
        return { id: (element.parentElement as unknown as SVGGElement).dataset.id, box: { left, top, right, bottom } };
      }),
    );
    expect(boxes.length).toBeGreaterThan(30);
    for (const { id, box } of boxes) expect(inside(box, chart), `${id} after Fit`).toBe(true);
    await showLevel(page, 'Phases', 'phases');
  }, 120_000);

  it('"All states" at the end of a run with an added phase shows the state the run left for done, readable', async () => {
    const rules = JSON.parse(readFileSync(join(repoRoot, 'docs', 'cookbook', 'review-before-finish.json'), 'utf8')) as Record<string, unknown>;
    const reviewTrace = await recordDemoTrace(join(dir.path, 'review'), rules);
    const reviewLines = readLines(reviewTrace);
    const last = reviewLines.filter((line) => line.kind === 'transition').at(-1);
    expect(last).toMatchObject({ from: 'review.gate', to: 'done' });
    writeFileSync(join(dir.path, 'review.html'), (await renderReplayPage(reviewTrace)).html);
    const review = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await review.goto(`file://${join(dir.path, 'review.html')}`);
    await review.waitForSelector('#app.ready[data-state="done"]');
    await showLevel(review, 'All states', 'whole');
    const shown = await sizesOnScreen(review, 'svg.chart text');
    expect(shown.map((text) => text.text)).toEqual(expect.arrayContaining(['gate', 'review', 'afterTools']));
    for (const text of shown) expect(text.px, text.text).toBeGreaterThanOrEqual(11);
    await review.close();
  }, 120_000);

  it('an opened phase fits its pane, whether the run is in it or elsewhere', async () => {
    await showLevel(page, 'Phases', 'phases');
    const phases = await page.$$eval('svg.chart .node.phase', (nodes) => nodes.map((node) => (node as SVGGElement).dataset.id!));
    expect(phases.sort()).toEqual(['build', 'fix', 'plan', 'verify']);
    for (const index of moments) {
      for (const phase of phases) {
        await scrubTo(page, index);
        await page.click(`svg.chart .node.phase[data-id="${phase}"]`);
        await page.waitForSelector(`#app[data-level="phases:${phase}"]`);
        await settled(page);
        const pane = await rectOf(page, '.chart-area');
        const open = await rectOf(page, `svg.chart .node.compound.open[data-id="${phase}"] > .box`);
        expect(inside(open, pane), `${phase} at index ${index} (${states[index]}): ${JSON.stringify(open)} in ${JSON.stringify(pane)}`).toBe(true);
        // The column of end states beside it, where its exits that end the run go, is not cut off.
        for (const end of ['done', 'step_limit', 'stalled', 'failed'])
          expect(inside(await rectOf(page, `svg.chart .node.final[data-id="${end}"] > .box`), pane), `${end} with ${phase} open at index ${index}`).toBe(true);
        if (phase === 'verify' && index === moments[1]) await page.screenshot({ path: join(dir.path, 'open-verify.png') });
        await page.keyboard.press('Escape');
        await page.waitForSelector('#app[data-level="phases"]');
      }
    }
  }, 120_000);

  it('while scrubbing, the badge shows the state at that moment; at the end, how the run ended', async () => {
    const end = lines.findIndex((line) => line.kind === 'end');
    expect(lines[end]!.status).toBe('done');
    const sampled = [...new Set([0, 1, ...lines.map((_, index) => index).filter((index) => index % 9 === 3), end - 1])].filter((index) => index < end);
    const seen = new Set<string>();
    for (const index of sampled) {
      await scrubTo(page, index);
      const expected = states[index] ? `at ${states[index]}` : 'before the first state';
      expect(await page.textContent('.top .pill'), `index ${index}`).toBe(expected);
      seen.add(expected);
    }
    // Moments in several phases, not one state over and over.
    expect([...seen].filter((text) => /^at (plan|build|verify|fix)\./.test(text)).map((text) => text.split(/[ .]/)[1])).toEqual(
      expect.arrayContaining(['plan', 'build', 'verify', 'fix']),
    );
    await scrubTo(page, end);
    expect(await page.textContent('.top .pill')).toBe('done');
    expect(await page.getAttribute('.top .pill', 'data-tone')).toBe('done');
    await page.keyboard.press('Home');
    await page.waitForSelector('#app[data-index="0"]');
    expect(await page.textContent('.top .pill')).toBe('before the first state');
    await page.keyboard.press('End');
    await page.waitForSelector(`#app[data-index="${lines.length - 1}"]`);
    expect(await page.textContent('.top .pill')).toBe('done');
    expect(watched.errors).toEqual([]);
  });
});
