import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, reinBin, repoRoot } from '../helpers/cli.js';
import { waitUntil } from '../helpers/wait.js';
import { launchChromium, readLines, recordDemoTrace, tempDir, waitForText, watchPage } from './browser.js';

interface Served {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  exit: Promise<number | null>;
}

/** Starts the built CLI and waits for the URL it prints. */
function serve(args: string[]): Promise<Served> {
  const env = cleanEnv();
  delete env.CI;
  const child = spawn(process.execPath, [reinBin, ...args], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed:\n${stderr}`)), 60_000);
    child.stdout!.resume();
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      stderr += chunk;
      const url = /http:\/\/127\.0\.0\.1:\d+\/#key=[\w-]+/.exec(stderr)?.[0];
      if (url) {
        clearTimeout(timer);
        resolve({ child, url, stderr: () => stderr, exit });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code} before printing a URL:\n${stderr}`));
    });
  });
}

describe('the served page', () => {
  const dir = tempDir('rein-viz-live-');
  let browser: Browser;
  let served: Served | undefined;

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterEach(() => {
    if (served && served.child.exitCode === null) served.child.kill('SIGKILL');
    served = undefined;
  });
  afterAll(async () => {
    await browser?.close();
    dir.remove();
  });

  it('follows `rein demo --viz` live from XState inspection until the highlight reaches done, then serves on until stopped', async () => {
    served = await serve(['demo', '--viz', '--viz-port', '0', '--run-dir', join(dir.path, 'live-run')]);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const watched = watchPage(page);
    await page.goto(served.url);
    await page.waitForSelector('#app.ready');
    // Every state the highlight passes through, as the page shows it.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { seen: string[] }).seen = seen;
      const app = document.getElementById('app')!;
      new MutationObserver(() => {
        if (app.dataset.state && seen.at(-1) !== app.dataset.state) seen.push(app.dataset.state);
      }).observe(app, { attributes: true, attributeFilter: ['data-state'] });
    });
    await page.waitForSelector('#app[data-state="done"][data-status="done"]', { timeout: 45_000 });
    expect(await page.$eval('svg.chart .node.active', (node) => (node as SVGGElement).dataset.id)).toBe('done');
    expect(Number(await page.getAttribute('#app', 'data-inspected'))).toBeGreaterThan(10);
    expect(await page.textContent('.rows')).toContain('gate refused finish');
    await page.waitForFunction(() => document.querySelector('.top .pill')?.textContent === 'done');
    const trace = readLines(join(dir.path, 'live-run', 'trace.jsonl'));
    expect(await page.textContent('.events .count')).toMatch(new RegExp(`/ ${trace.length}$`));
    const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
    expect(seen.at(-1)).toBe('done');
    expect(watched.errors).toEqual([]);
    expect(watched.requests.every((url) => url.startsWith(new URL(served!.url).origin))).toBe(true);

    expect(served.stderr()).toContain('press Ctrl+C to exit');
    // The run has ended though the server serves on: nothing on the page says live any more, nor after a reload.
    await waitForText(page, '.scrubber .transport button:last-child', 'Latest');
    expect(await page.textContent('.top .source')).toBe('ended run (served live)');
    await page.reload();
    await page.waitForSelector('#app.ready[data-status="done"]');
    await waitForText(page, '.top .pill', 'done');
    expect(await page.textContent('.scrubber .transport button:last-child')).toBe('Latest');
    expect(await page.textContent('.top .source')).toBe('ended run (served live)');
    expect(await page.$$('.top .pill[data-tone="live"]')).toEqual([]);
    served.child.kill('SIGTERM');
    expect(await served.exit).toBe(0);
    // The server has gone: the page no longer claims to be live.
    await waitForText(page, '.scrubber .transport button:last-child', 'Latest');
    expect(await page.textContent('.scrubber .transport button:last-child')).toBe('Latest');
    expect(await page.textContent('.top .pill')).toBe('done');
  }, 120_000);

  it('follows `rein resume --viz` of a killed run: the page starts with the steps before the kill and reaches done', async () => {
    const runDir = join(dir.path, 'killed-run');
    const tracePath = join(runDir, 'trace.jsonl');
    const first = await serve(['demo', '--viz', '--viz-exit', '--viz-port', '0', '--run-dir', runDir]);
    // The paced demo model answers every 450 ms: kill it once its first edit is traced, well before the end.
    const deadline = Date.now() + 60_000;
    while (!(existsSync(tracePath) && readFileSync(tracePath, 'utf8').includes('"name":"edit_file"'))) {
      if (Date.now() > deadline) throw new Error(`the demo never made its first edit:\n${first.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    first.child.kill('SIGKILL');
    await first.exit;
    // The kill may cut the last line mid-write; the lines before it are whole.
    expect(readFileSync(tracePath, 'utf8')).not.toContain('"kind":"end"');

    // Served now, the cut trace of the dead run is not "following" forever: rein viz sees its process is gone.
    served = await serve(['viz', runDir, '--port', '0']);
    const cut = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await cut.goto(served.url);
    await waitForText(cut, '.top .pill', 'run gone: no end line');
    expect(await cut.textContent('.notes')).toMatch(/the run's process \(pid \d+\) is gone and wrote no end line/);
    await waitUntil(() => served!.stderr().includes('no longer following the trace'), 'rein viz to say it stopped following');
    await cut.close();
    served.child.kill('SIGINT');
    await served.exit;

    served = await serve(['resume', runDir, '--viz', '--viz-port', '0']);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const watched = watchPage(page);
    await page.goto(served.url);
    await page.waitForSelector('#app[data-state="done"][data-status="done"]', { timeout: 45_000 });
    const after = readLines(tracePath);
    expect(after.map((line) => line.i)).toEqual(after.map((_, index) => index));
    expect(after.filter((line) => line.kind === 'resume')).toHaveLength(1);
    // Every line of the trace is on the page: the ones written before the kill and the resumed ones.
    await waitForText(page, '.events .count', `/ ${after.length}`);
    expect(await page.textContent('.events .count')).toMatch(new RegExp(`/ ${after.length}$`));
    expect(watched.errors).toEqual([]);
    served.child.kill('SIGTERM');
    expect(await served.exit).toBe(0);
  }, 180_000);

  it('follows a trace still being written with `rein viz <trace>`, a half-written line included, to its end line', async () => {
    const whole = readFileSync(await recordDemoTrace(join(dir.path, 'followed-source')), 'utf8');
    const lines = whole.trimEnd().split('\n');
    const growing = join(dir.path, 'followed', 'trace.jsonl');
    mkdirSync(join(dir.path, 'followed'));
    // The run so far: eight whole lines and half of the ninth.
    const cut = lines.slice(0, 8).join('\n').length + 1 + Math.floor(lines[8]!.length / 2);
    writeFileSync(growing, whole.slice(0, cut));
    served = await serve(['viz', growing, '--port', '0']);
    expect(served.stderr()).toContain('following the trace');
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const watched = watchPage(page);
    await page.goto(served.url);
    await page.waitForSelector('#app.ready');
    await waitForText(page, '.top .pill', '● following the trace');
    await waitForText(page, '.events .count', '/ 8');
    appendFileSync(growing, whole.slice(cut, whole.length - 40));
    appendFileSync(growing, whole.slice(whole.length - 40));
    await page.waitForSelector('#app[data-state="done"][data-status="done"]', { timeout: 20_000 });
    await waitForText(page, '.events .count', `/ ${lines.length}`);
    expect(await page.textContent('.events .count')).toMatch(new RegExp(`/ ${lines.length}$`));
    await waitForText(page, '.top .pill', 'done');
    await waitUntil(() => served!.stderr().includes('rein viz: the run ended (done)'), 'rein viz to say the run ended');
    expect(watched.errors).toEqual([]);
    served.child.kill('SIGINT');
    expect(await served.exit).toBe(0);

    // --no-follow shows the trace as it is: no stream, and the pill says there is no end line.
    writeFileSync(growing, whole.slice(0, cut));
    served = await serve(['viz', growing, '--port', '0', '--no-follow']);
    expect(served.stderr()).not.toContain('following the trace');
    await page.goto(served.url);
    await waitForText(page, '.top .pill', 'no end line');
    const session = await page.evaluate(() => sessionStorage.getItem('rein-session') ?? '');
    expect((await fetch(`${new URL(served.url).origin}/events`, { headers: { 'x-rein-session': session } })).status).toBe(404);
  }, 150_000);

  it('serves a finished trace with `rein viz <trace> --port 0`', async () => {
    // The trace the live run above wrote, or a fresh one when that test was skipped.
    const written = join(dir.path, 'live-run', 'trace.jsonl');
    const tracePath = existsSync(written) ? written : await recordDemoTrace(join(dir.path, 'finished-run'));
    served = await serve(['viz', tracePath, '--port', '0']);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const watched = watchPage(page);
    await page.goto(served.url);
    await page.waitForSelector('#app.ready[data-state="done"]');
    expect(await page.locator('svg.chart .node.phase').count()).toBe(4);
    await page.click('.chart-tools button:text("All states")');
    await page.waitForSelector('#app[data-level="whole"]');
    expect(await page.locator('svg.chart .node').count()).toBeGreaterThan(40);
    expect(watched.errors).toEqual([]);
    served.child.kill('SIGINT');
    expect(await served.exit).toBe(0);
  }, 120_000);
});
