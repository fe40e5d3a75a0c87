import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReplayPage } from '../../visualizer/server/replay-page.js';
import { launchChromium, readLines, recordDemoTrace, scrubTo, tempDir, waitForText, watchPage } from './browser.js';

const TARGET_LINES = 10_000;

/** A long run made of the demo's turns over and over, with events of a kind from a newer rein and a cut last line. */
function syntheticTrace(demo: Array<Record<string, unknown>>): { text: string; lines: number } {
  const [start, ...rest] = demo;
  const body = rest.filter((line) => line.kind !== 'end');
  const t0 = Number(start!.t);
  const out: string[] = [JSON.stringify(start)];
  for (let round = 0; out.length < TARGET_LINES; round++) {
    for (const line of body) {
      if (out.length % 997 === 0) out.push(JSON.stringify({ kind: 'sampling_tick', i: out.length, t: t0 + out.length * 0.05, round }));
      out.push(
        JSON.stringify({ ...line, i: out.length, t: t0 + out.length * 0.05, ...(line.kind === 'model' ? { step: round * 9 + Number(line.step) } : {}) }),
      );
    }
  }
  out.push(JSON.stringify({ ...demo.at(-1), i: out.length, t: t0 + out.length * 0.05 }));
  return { text: `${out.join('\n')}\n{"kind":"tool","i":${out.length},"name":"run","args":{"comm`, lines: out.length };
}

describe('a 10,000-event trace, and narrow windows', () => {
  const dir = tempDir('rein-viz-scale-');
  let browser: Browser;
  let page: Page;
  let watched: ReturnType<typeof watchPage>;
  let count: number;
  let openMs: number;

  beforeAll(async () => {
    const [demoTrace, launched] = await Promise.all([recordDemoTrace(join(dir.path, 'run')), launchChromium()]);
    browser = launched;
    const synthetic = syntheticTrace(readLines(demoTrace));
    count = synthetic.lines;
    const tracePath = join(dir.path, 'big.jsonl');
    writeFileSync(tracePath, synthetic.text);
    writeFileSync(join(dir.path, 'big.html'), (await renderReplayPage(tracePath)).html);
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    watched = watchPage(page);
    const started = Date.now();
    await page.goto(`file://${join(dir.path, 'big.html')}`);
    await page.waitForSelector(`#app.ready[data-index="${count - 1}"]`);
    openMs = Date.now() - started;
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    dir.remove();
  });

  it('opens, reports the cut last line, and keeps the event list virtual', async () => {
    expect(count).toBeGreaterThanOrEqual(TARGET_LINES);
    expect(openMs).toBeLessThan(20_000);
    expect(await page.textContent('.notes')).toContain('is incomplete (the run was killed mid-write');
    expect(await page.textContent('.notes')).toContain('sampling_tick');
    // The filters off at first: transitions inside a phase and progress lines.
    await page.click('.chip[data-filter="steps"]');
    await page.click('.chip[data-filter="progress"]');
    await waitForText(page, '.events .count', `${count.toLocaleString('en-US')} / ${count.toLocaleString('en-US')}`);
    expect(await page.locator('.rows .row').count()).toBeLessThan(200);
    await page.$eval('.rows', (rows) => {
      rows.scrollTop = rows.scrollHeight;
    });
    await page.waitForSelector(`.rows .row[data-index="${count - 1}"]`);
    expect(await page.locator('.rows .row').count()).toBeLessThan(200);
    await page.fill('.events .search', 'sampling_tick');
    await page.waitForSelector('.rows .row.tone-unknown');
    expect(await page.textContent('.rows .row.tone-unknown .text')).toContain('"round"');
    await page.fill('.events .search', '');
  });

  // How fast the page is, is for `npm run bench`; this only checks that no move hangs the page.
  it('scrubs across the whole trace without freezing, the list staying virtual', async () => {
    const timings = await page.evaluate(async (total) => {
      const range = document.querySelector<HTMLInputElement>('.scrubber .range')!;
      const frame = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      const spent: number[] = [];
      for (let move = 0; move <= 24; move++) {
        const started = performance.now();
        range.value = String(Math.round((((move * 7919) % 25) / 24) * (total - 1)));
        range.dispatchEvent(new Event('input', { bubbles: true }));
        await frame();
        spent.push(performance.now() - started);
      }
      return spent.sort((a, b) => a - b);
    }, count);
    expect(timings).toHaveLength(25);
    expect(timings.at(-1)!).toBeLessThan(20_000);
    expect(await page.locator('.rows .row').count()).toBeLessThan(200);
    await scrubTo(page, 5000);
    expect(await page.getAttribute('#app', 'data-state')).not.toBe('');
    expect(watched.errors).toEqual([]);
  }, 60_000);

  it('opens odd traces without an error: empty, no start line, states and kinds this rein does not know', async () => {
    const odd = [
      42,
      'text',
      null,
      { kind: 'transition', from: 'warp.core', to: 'warp.drive', event: 'engage', guard: 'dilithium' },
      { kind: 'model', usage: null, step: 'two' },
      { kind: 'end', status: 'exploded' },
    ];
    for (const [name, text] of [
      ['empty', ''],
      ['odd', odd.map((line) => JSON.stringify(line)).join('\n')],
    ] as const) {
      const tracePath = join(dir.path, `${name}.jsonl`);
      writeFileSync(tracePath, text);
      writeFileSync(join(dir.path, `${name}.html`), (await renderReplayPage(tracePath)).html);
      const oddPage = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      const errors = watchPage(oddPage).errors;
      await oddPage.goto(`file://${join(dir.path, `${name}.html`)}`);
      await oddPage.waitForSelector('#app.ready');
      await oddPage.waitForTimeout(100);
      expect(await oddPage.textContent('.notes'), name).toContain(name === 'empty' ? 'holds no trace lines' : 'no start line');
      if (name === 'odd') {
        expect(await oddPage.getAttribute('#app', 'data-state')).toBe('warp.drive');
        expect(await oddPage.textContent('.why')).toContain('warp.drive');
        expect(await oddPage.textContent('.pill')).toBe('exploded');
      }
      expect(errors, name).toEqual([]);
      await oddPage.close();
    }
  });

  it('fits a narrow window: chart on top, events below, no sideways scrolling, the scrubber at hand', async () => {
    await page.setViewportSize({ width: 420, height: 860 });
    await page.waitForTimeout(300);
    const layout = await page.evaluate(() => {
      const box = (selector: string) => document.querySelector(selector)!.getBoundingClientRect();
      return { scrollWidth: document.documentElement.scrollWidth, chart: box('.chart-pane'), events: box('.events'), scrubber: box('.scrubber') };
    });
    expect(layout.scrollWidth).toBeLessThanOrEqual(420);
    expect(layout.chart.width).toBeGreaterThan(380);
    expect(layout.chart.height).toBeGreaterThan(280);
    expect(layout.events.top).toBeGreaterThanOrEqual(layout.chart.bottom);
    expect(layout.scrubber.bottom).toBeLessThanOrEqual(860);
    await page.screenshot({ path: join(dir.path, 'narrow.png') });
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
