import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarnessMachine } from '../../machines/harness-machine.js';
import { rulesSchema } from '../../rules/schema.js';
import { ChartIndex } from '../../visualizer/page/chart-index.js';
import { Timeline } from '../../visualizer/page/timeline.js';
import { renderReplayPage } from '../../visualizer/server/replay-page.js';
import { buildStatechartGraph } from '../../visualizer/server/statechart-graph.js';
import { expectedStates, launchChromium, readLines, recordDemoTrace, scrubTo, stateIds, tempDir, waitForText, watchPage } from './browser.js';

// The replay page of a recorded `rein demo`, opened from disk in headless Chromium.
describe('the replay page of a rein demo trace', () => {
  const dir = tempDir('rein-viz-replay-');
  let browser: Browser;
  let page: Page;
  let watched: ReturnType<typeof watchPage>;
  let lines: Array<Record<string, unknown>>;
  let tracePath: string;

  beforeAll(async () => {
    const [trace, launched] = await Promise.all([recordDemoTrace(join(dir.path, 'run')), launchChromium()]);
    tracePath = trace;
    browser = launched;
    lines = readLines(tracePath);
    const htmlPath = join(dir.path, 'demo.html');
    writeFileSync(htmlPath, (await renderReplayPage(tracePath)).html);
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    watched = watchPage(page);
    await page.goto(`file://${htmlPath}`);
    await page.waitForSelector('#app.ready');
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    dir.remove();
  });

  it('draws every state of the run\'s machine, with guards on the arrows, under "All states"', async () => {
    const machine = createHarnessMachine(rulesSchema.parse(lines[0]!.rules));
    await page.click('.chart-tools button:text("All states")');
    await page.waitForSelector('#app[data-level="whole"]');
    const drawn = await page.$$eval('svg.chart .node', (nodes) => nodes.map((node) => (node as SVGGElement).dataset.id));
    for (const id of stateIds(machine)) expect(drawn, id).toContain(id);
    const labels = await page.$$eval('svg.chart .edge .label', (texts) => texts.map((text) => text.textContent ?? ''));
    expect(labels.join(' ')).toContain('[hasToolCalls]');
    const tooltips = await page.$$eval('svg.chart .edge title', (titles) => titles.map((title) => title.textContent ?? ''));
    expect(tooltips.join('\n')).toContain('[tests passed since the last edit] / acceptFinish');
  });

  it('moves the highlight with the scrubber: at every index, the state the trace says', async () => {
    const timeline = new Timeline(new ChartIndex(await buildStatechartGraph(createHarnessMachine(rulesSchema.parse(lines[0]!.rules)))));
    lines.forEach((line) => {
      timeline.append(line);
    });
    const expected = expectedStates(timeline.entries.map((entry) => entry.data));
    // One round trip: move the range as a person would, let the page render, read what is highlighted.
    const seen = await page.evaluate(async (count) => {
      const range = document.querySelector<HTMLInputElement>('.scrubber .range')!;
      const frame = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      const result: Array<{ index: string; active: string[]; phase: string[] }> = [];
      for (let index = 0; index < count; index++) {
        range.value = String(index);
        range.dispatchEvent(new Event('input', { bubbles: true }));
        await frame();
        const ids = (selector: string) => [...document.querySelectorAll<SVGGElement>(selector)].map((node) => node.dataset.id!);
        result.push({
          index: document.getElementById('app')!.dataset.index!,
          active: ids('svg.chart .node.active'),
          phase: ids('svg.chart .node.compound.active-parent'),
        });
      }
      return result;
    }, lines.length);
    seen.forEach((moment, index) => {
      expect(moment.index).toBe(String(index));
      expect(moment.active, `index ${index}`).toEqual(expected[index] ? [expected[index]] : []);
      expect(moment.phase, `index ${index}`).toEqual(expected[index]!.includes('.') ? [expected[index]!.split('.')[0]] : []);
    });
  }, 60_000);

  it('marks the gate refusal: the fallback taken, the refused guard, the row in the event list', async () => {
    const timeline = new Timeline(new ChartIndex(await buildStatechartGraph(createHarnessMachine(rulesSchema.parse(lines[0]!.rules)))));
    lines.forEach((line) => {
      timeline.append(line);
    });
    const ordered = timeline.entries.map((entry) => entry.data);
    const refusal = ordered.findIndex((line) => Array.isArray(line.actions) && line.actions.includes('refuseFinish'));
    const from = String(ordered[refusal]!.from);
    await scrubTo(page, refusal);
    expect(await page.$eval('svg.chart .edge.taken', (edge) => (edge as SVGGElement).dataset.id)).toBe(`${from}->${String(ordered[refusal]!.to)}`);
    expect(await page.$eval('svg.chart .edge.refused', (edge) => (edge as SVGGElement).dataset.id)).toBe(`${from.split('.')[0]}->done`);
    expect(await page.textContent('.why .guards')).toContain('✗ [tests passed since the last edit]');
    expect(await page.textContent('.detail')).toContain('refused');

    // The decision's row comes right after the gate's transition, before the phase change it led to.
    const finish = ordered.findIndex((line) => line.kind === 'finish' && line.allowed === false);
    expect(finish).toBe(refusal + 1);
    await scrubTo(page, finish);
    const row = await page.$eval('.rows .row.current', (element) => ({ tone: element.className, text: element.textContent ?? '' }));
    expect(row.tone).toContain('tone-refusal');
    expect(row.text).toContain('gate refused finish');

    await page.click('.scrubber button[aria-label^="One event on"]');
    await page.waitForSelector(`#app[data-index="${finish + 1}"]`);
    await page.screenshot({ path: join(dir.path, 'replay-gate-refusal.png') });
  });

  it('draws no refused arrow on an ordinary step: only where a rule beat the guards tried before it, or the gate refused', async () => {
    const timeline = new Timeline(new ChartIndex(await buildStatechartGraph(createHarnessMachine(rulesSchema.parse(lines[0]!.rules)))));
    lines.forEach((line) => {
      timeline.append(line);
    });
    let ordinary = 0;
    let notable = 0;
    for (let index = 0; index < timeline.length; index++) {
      const match = timeline.moment(index).match;
      if (!match?.transition || match.refused.length === 0) continue;
      const fallback = match.transition.guard === null && !match.transition.source.endsWith('.gate');
      // A few of each kind are enough: every ordinary step of the demo refuses some guard (route, review, afterTools).
      if ((fallback && ordinary >= 4) || (!fallback && notable >= 4)) continue;
      await scrubTo(page, index);
      const arrows = await page.$$eval('svg.chart .edge.refused', (edges) => edges.map((edge) => (edge as SVGGElement).dataset.id!));
      // The refused transitions drawn at this level, on arrows of their own.
      const drawn = await page.$$eval('svg.chart .edge', (edges) => edges.map((edge) => (edge as SVGGElement).dataset.id!));
      const own = [...new Set(match.refused.map((refused) => refused.edge).filter((edge) => edge && edge !== match.transition!.edge && drawn.includes(edge)))];
      if (fallback) ordinary += 1;
      else notable += 1;
      expect(arrows.sort(), `index ${index}: ${match.transition.source} ${match.transition.label}`).toEqual(fallback ? [] : own.sort());
    }
    expect(ordinary).toBe(4);
    expect(notable).toBeGreaterThan(0);
  });

  it("shows model calls with tokens, tool calls with arguments, and the gauges at the scrubber's position", async () => {
    await page.keyboard.press('End');
    await page.waitForSelector(`#app[data-index="${lines.length - 1}"][data-state="done"]`);
    const text = await page.textContent('.rows');
    expect(text).toMatch(/step 9 .*→ update_todo, finish\s*[\d,]+ in · \d+ out/);
    expect(text).toContain('run node --test');
    expect(await page.textContent('.gauges')).toMatch(/Steps\s*9 \/ 40/i);
    // The last tool call's row is in view at the end (rows out of view are recycled as the list scrolls).
    const lastTool = lines.map((line) => line.kind).lastIndexOf('tool');
    await page.click(`.rows .row[data-index="${lastTool}"]`);
    await page.waitForSelector(`#app[data-index="${lastTool}"]`);
    await waitForText(page, '.detail', 'arguments');
    await page.click('svg.chart .node[data-id="verify.gate"]');
    await waitForText(page, '.detail', 'Transitions, in the order XState tries them');
    // Scrubbed back to that call, the badge says where the run was then, not how it ended.
    expect(await page.textContent('.pill')).toBe(`at ${expectedStates(lines)[lastTool]}`);
  });

  it('loads nothing from the network and logs no error', async () => {
    expect(watched.errors).toEqual([]);
    expect(watched.requests.filter((url) => !url.startsWith('file://') && !url.startsWith('data:'))).toEqual([]);
  });
});
