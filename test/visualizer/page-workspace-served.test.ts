import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readSnapshotIndex } from '../../run/record/snapshot-index.js';
import { writeForkRunDir } from '../../run/snapshots/fork-run-dir.js';
import { chartOf, diffStepTrees, openSnapshotRun, stepSnapshot } from '../../run/snapshots/step-snapshots.js';
import { call, reply, runScripted } from '../../testing/index.js';
import { cleanEnv, reinBin, repoRoot } from '../helpers/cli.js';
import { launchChromium, readLines, scrubTo, tempDir, waitForText, watchPage } from './browser.js';

interface Served {
  child: ChildProcess;
  url: string;
  exit: Promise<number | null>;
}

/** Starts the built CLI (its snapshot store in the test's state dir) and waits for the URL it prints. */
function serve(args: string[], stateDir: string): Promise<Served> {
  const env = cleanEnv({ XDG_STATE_HOME: stateDir });
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
        resolve({ child, url, exit });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code} before printing a URL:\n${stderr}`));
    });
  });
}

describe('the step panel on a served page', () => {
  const dir = tempDir('rein-viz-served-ws-');
  const stateDir = join(dir.path, 'state');
  let browser: Browser;
  let served: Served | undefined;
  let previousState: string | undefined;

  beforeAll(async () => {
    previousState = process.env.XDG_STATE_HOME;
    process.env.XDG_STATE_HOME = stateDir;
    browser = await launchChromium();
  });
  afterEach(() => {
    if (served && served.child.exitCode === null) served.child.kill('SIGKILL');
    served = undefined;
  });
  afterAll(async () => {
    await browser?.close();
    if (previousState === undefined) delete process.env.XDG_STATE_HOME;
    else process.env.XDG_STATE_HOME = previousState;
    dir.remove();
  });

  it('a live run (`rein demo --viz`) shows each step as the run keeps it: its diffs and the rewind and fork commands', async () => {
    const runDir = join(dir.path, 'live-run');
    served = await serve(['demo', '--viz', '--viz-port', '0', '--run-dir', runDir], stateDir);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const watched = watchPage(page);
    await page.goto(served.url);
    await page.waitForSelector('#app.ready');
    // Every step the panel shows, as the page shows it.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { seen: string[] }).seen = seen;
      const panel = document.querySelector('.workspace')!;
      new MutationObserver(() => {
        const step = (panel as HTMLElement).dataset.step;
        if (step !== undefined && seen.at(-1) !== step) seen.push(step);
      }).observe(panel, { attributes: true, attributeFilter: ['data-step'] });
    });
    await page.waitForSelector('#app[data-status="done"]', { timeout: 60_000 });
    const kept = readSnapshotIndex(runDir).map((line) => line.step);
    const last = kept.at(-1)!;
    await page.waitForSelector(`.workspace[data-step="${last}"]`, { timeout: 30_000 });
    // The live page's data holds no steps: it fetched them from the server, again as the run kept more.
    const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.map(Number)).toEqual([...seen.map(Number)].sort((a, b) => a - b));
    // Folded on a live page; a click opens it.
    expect(await page.$eval('.workspace details', (fold) => (fold as HTMLDetailsElement).open)).toBe(false);
    await page.click('.workspace summary.head');
    await page.waitForSelector('.workspace .command', { state: 'visible' });
    const text = await page.$eval('.workspace', (element) => element.textContent ?? '');
    expect(text).toContain(`npx rein rewind ${runDir} --to ${last}`);
    expect(text).toContain(`npx rein fork ${runDir} --at ${last} --model`);
    // What the run changed from the start, as the snapshots hold it (the demo edits its code to fix a bug).
    const run = openSnapshotRun(runDir);
    const sinceStart = diffStepTrees(run, 0, stepSnapshot(run, last));
    expect(sinceStart.modified.length).toBeGreaterThan(0);
    expect(text).toContain(`since the start: +${sinceStart.added.length} ~${sinceStart.modified.length} -${sinceStart.deleted.length}`);
    for (const path of sinceStart.modified) expect(text).toContain(`~ ${path}`);
    // Picking an earlier step shows that step's diffs.
    const lines = readLines(join(runDir, 'trace.jsonl'));
    await scrubTo(
      page,
      lines.findIndex((line) => line.kind === 'model' && line.step === 1),
    );
    await page.waitForSelector('.workspace[data-step="1"]');
    expect(await page.$eval('.workspace', (element) => element.textContent ?? '')).toContain('since step 0:');
    expect(watched.errors).toEqual([]);
  }, 120_000);

  it("a fork's page links to its origin, opened at the fork step; the origin's page lists its forks; no other run is served", async () => {
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
    const origin = openSnapshotRun(run.runDir);
    const target = stepSnapshot(origin, 1);
    const forkDir = join(dir.path, 'fork');
    writeForkRunDir({ run: origin, target, chart: chartOf(origin, target), forkDir, changes: { workspace, model: 'other' } });

    served = await serve(['viz', forkDir, '--port', '0', '--no-follow'], stateDir);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(served.url);
    await page.waitForSelector('#app.ready');
    await waitForText(page, '.workspace .origin', `A fork of ${run.runDir} at step 1`);
    await page.click('.workspace .origin a');
    // The origin's page, in the same tab (its session kept), opened at the fork step.
    await page.waitForSelector('#app.ready .workspace[data-step="1"]', { timeout: 30_000 });
    expect(new URL(page.url()).searchParams.get('run')).toBe(run.runDir);
    const originLines = readLines(join(run.runDir, 'trace.jsonl'));
    expect(Number(await page.getAttribute('#app', 'data-index'))).toBeLessThan(originLines.length - 1);
    await waitForText(page, '.workspace .forks', 'Forks (1):');
    expect(await page.$eval('.workspace .forks a', (link) => link.textContent)).toBe(forkDir);
    await page.click('.workspace .forks a');
    await page.waitForSelector('#app.ready .workspace .origin', { timeout: 30_000 });
    expect(new URL(page.url()).searchParams.get('run')).toBe(forkDir);

    // A run that no fork links to the served one is not served, whatever the address asks for.
    const session = await page.evaluate(() => sessionStorage.getItem('rein-session') ?? '');
    const ask = (run: string) =>
      fetch(new URL(`/page?run=${encodeURIComponent(run)}&step=0`, served!.url), { headers: { 'x-rein-session': session } }).then(
        (response) => response.status,
      );
    expect(await ask(run.runDir)).toBe(200);
    // A copy of the origin's run directory: a whole run, but no fork links it to the served one.
    const copy = join(dir.path, 'copy-of-origin');
    cpSync(run.runDir, copy, { recursive: true });
    expect(await ask(copy)).toBe(404);
    expect(await ask('/etc')).toBe(404);
  }, 120_000);
});
