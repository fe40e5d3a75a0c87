import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../eval/run-record.js';
import { writeTaskSet } from '../eval/eval-fixtures.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { launchChromium, tempDir, watchPage } from './browser.js';

// `rein eval` on two small tasks under two configurations, then its report.html in Chromium at 800 px.
describe('the eval report', () => {
  const dir = tempDir('rein-viz-report-');
  const out = join(dir.path, 'out');
  let tasks: string;
  let browser: Browser;
  let records: RunRecord[];

  beforeAll(async () => {
    tasks = writeTaskSet(['add', 'shout']);
    const [result, launched] = await Promise.all([
      runCli(['eval', tasks, '--preset', 'default', '--preset', 'no-verification-gate', '--out', out, '--parallel', '2'], {
        env: cleanEnv(),
        timeoutMs: 150_000,
      }),
      launchChromium(),
    ]);
    browser = launched;
    expect(result.code, result.stderr).toBe(0);
    records = readFileSync(join(out, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as RunRecord);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    rmSync(tasks, { recursive: true, force: true });
    dir.remove();
  });

  it("writes each run's replay page beside its trace, and every cell links to its run's", () => {
    expect(records).toHaveLength(4);
    const report = readFileSync(join(out, 'report.html'), 'utf8');
    for (const record of records) {
      const page = join(dirname(record.tracePath), 'replay.html');
      expect(existsSync(join(out, page)), page).toBe(true);
      expect(report).toContain(`href="${page}"`);
    }
    expect(report).not.toContain('trace.jsonl"');
  });

  it("fits 800 px without sideways scrolling, gives each task's cost and tokens, and explains the significance marker", async () => {
    const page = await browser.newPage({ viewport: { width: 800, height: 900 } });
    const watched = watchPage(page);
    await page.goto(`file://${join(out, 'report.html')}`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(800);
    // Wide tables scroll within their own box; the task grid keeps its task column in view.
    const boxes = await page.$$eval('.scroll', (elements) => elements.map((element) => element.getBoundingClientRect().right));
    for (const right of boxes) expect(right).toBeLessThanOrEqual(800);
    const cells = await page.$$eval('table.grid td.pass, table.grid td.fail', (elements) => elements.map((element) => element.textContent ?? ''));
    expect(cells).toHaveLength(4);
    for (const record of records) {
      const tokens = record.promptTokens + record.completionTokens;
      const shown = tokens >= 10_000 ? `${(tokens / 1000).toFixed(1)}k tok` : `${tokens.toLocaleString('en-US')} tok`;
      expect(
        cells.some((cell) => cell.includes(`$${record.costUsd.toFixed(4)} · ${shown}`)),
        `${record.task} × ${record.config}`,
      ).toBe(true);
    }
    expect(await page.textContent('.footnote')).toContain('* p < 0.05');
    expect(watched.requests.filter((url) => !url.startsWith('file://'))).toEqual([]);
    await page.close();
  });

  it("opens a run's replay page from its cell", async () => {
    const page = await browser.newPage({ viewport: { width: 800, height: 900 } });
    const watched = watchPage(page);
    await page.goto(`file://${join(out, 'report.html')}`);
    const link = page.locator('table.grid td a.run').first();
    const href = await link.getAttribute('href');
    const record = records.find((candidate) => join(dirname(candidate.tracePath), 'replay.html') === href)!;
    await link.click();
    await page.waitForSelector('#app.ready');
    expect(page.url()).toBe(`file://${resolve(out, href!)}`);
    const final = record.status === 'done' ? 'done' : record.status;
    await page.waitForSelector(`#app[data-state="${final}"]`);
    expect(await page.textContent('.top .task')).toContain(JSON.parse(readFileSync(join(out, record.tracePath), 'utf8').split('\n')[0]!).task);
    expect(watched.errors).toEqual([]);
    await page.close();
  });
});
