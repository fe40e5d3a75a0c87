import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import type { AnyStateMachine } from 'xstate';
import { scriptedModelSource } from '../../actors/model/model-source.js';
import { DEMO_TASK, DEMO_TEST_CMD, demoScript } from '../../cli/demo/demo-model.js';
import { simulatedModelSource } from '../../eval/simulated/model-source.js';
import { simulationSchema } from '../../eval/simulated/simulation-schema.js';
import { rulesSchema } from '../../rules/schema.js';
import { startRun } from '../../run/start-run.js';
import { makeTempDir } from '../../testing/temp-dir.js';
import { demoRepoFiles } from '../helpers/demo-files.js';
import { writeFiles } from '../helpers/workspace.js';

/** Debian's Chromium, headless; never a downloaded browser. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}

/** A temp directory for one test file, removed by `remove()`. */
export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = makeTempDir(prefix, { until: 'exit' });
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Runs what `rein demo` runs (the demo repo, its scripted model, real tools; under `rulesInput` as `--config`), in this process, and returns the trace path. */
export async function recordDemoTrace(runDir: string, rulesInput: Record<string, unknown> = {}): Promise<string> {
  const workspace = `${runDir}-workspace`;
  mkdirSync(workspace, { recursive: true });
  writeFiles(workspace, demoRepoFiles());
  const handle = await startRun({
    workspace,
    task: DEMO_TASK,
    testCmd: DEMO_TEST_CMD,
    rules: rulesSchema.parse({ ...rulesInput, verification: { ...(rulesInput.verification as object | undefined), command: DEMO_TEST_CMD } }),
    model: scriptedModelSource('demo-scripted', demoScript),
    runDir,
  });
  const output = await handle.done;
  if (output.status !== 'done') throw new Error(`the demo ended ${output.status}: ${output.reason}`);
  return handle.tracePath;
}

const ROUGH_TASK = 'Fix calc.js so the tests pass.';
const ROUGH_FILES: Record<string, string> = {
  'package.json': '{ "type": "module" }\n',
  'calc.js': 'export function add(a, b) {\n  return a - b;\n}\n',
  'calc.test.js':
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from './calc.js';\ntest('add', () => assert.equal(add(2, 3), 5, 'add adds'));\n",
};

/**
 * A rough run, in this process with real tools: a simulated model that
 * tries `git push --force` first (the deny list blocks it) and re-runs the
 * failing tests unchanged until the stall detector nudges it (the same call
 * with the same result: node:test's timings do not make a run new). Its trace has
 * a blocked command, a stall nudge and a gate decision.
 */
export async function recordRoughTrace(runDir: string): Promise<string> {
  const workspace = `${runDir}-workspace`;
  mkdirSync(workspace, { recursive: true });
  writeFiles(workspace, ROUGH_FILES);
  const rules = rulesSchema.parse({ verification: { command: 'node --test' } });
  const model = await simulatedModelSource(
    {
      kind: 'registry',
      names: ['destructive-commands', 'repeat-failing-command'],
      simulation: simulationSchema.parse({
        inspect: ['calc.js'],
        fixes: [{ path: 'calc.js', old: 'return a - b;', new: 'return a + b;', reveal: 'add adds' }],
        destructive: [{ command: 'git push --force origin HEAD:main' }],
      }),
    },
    rules,
    { prompt: ROUGH_TASK, testCmd: 'node --test' },
  );
  const handle = await startRun({ workspace, task: ROUGH_TASK, testCmd: 'node --test', rules, model, runDir });
  const output = await handle.done;
  if (output.status !== 'done') throw new Error(`the rough run ended ${output.status}: ${output.reason}`);
  return handle.tracePath;
}

/** Parsed lines of a JSONL file. */
export function readLines(path: string): Array<Record<string, unknown>> {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Every state of a machine as a dotted id (the root is left out). */
export function stateIds(machine: AnyStateMachine): string[] {
  const ids: string[] = [];
  const walk = (node: AnyStateMachine['root']) => {
    if (node.path.length > 0) ids.push(node.path.join('.'));
    Object.values(node.states).forEach(walk);
  };
  walk(machine.root);
  return ids;
}

/** The `to` of the last transition line at or before each index ('' before the first). */
export function expectedStates(lines: Array<Record<string, unknown>>): string[] {
  let state = '';
  return lines.map((line) => {
    if (line.kind === 'transition') state = String(line.to);
    return state;
  });
}

/** Moves the scrubber to `index` as a person would (an input event on the range) and waits for the page to render it. */
export async function scrubTo(page: Page, index: number): Promise<void> {
  await page.evaluate((value) => {
    const range = document.querySelector<HTMLInputElement>('.scrubber .range')!;
    range.value = String(value);
    range.dispatchEvent(new Event('input', { bubbles: true }));
  }, index);
  await page.waitForSelector(`#app[data-index="${index}"]`, { state: 'attached', timeout: 5000 });
}

/** Collects page errors and requests that leave the page (a self-contained page makes none). */
export function watchPage(page: Page): { errors: string[]; requests: string[] } {
  const watched = { errors: [] as string[], requests: [] as string[] };
  page.on('pageerror', (error) => watched.errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') watched.errors.push(message.text());
  });
  page.on('request', (request) => watched.requests.push(request.url()));
  return watched;
}

/** Waits until the element matching `selector` contains `text`: the page renders on the next frame, not inside the click. */
export async function waitForText(page: Page, selector: string, text: string, timeout = 10_000): Promise<void> {
  await page
    .waitForFunction(([target, wanted]) => document.querySelector(target!)?.textContent?.includes(wanted!) ?? false, [selector, text], { timeout })
    .catch(async (error: unknown) => {
      const actual = (await page.textContent(selector).catch(() => null)) ?? '(no such element)';
      throw new Error(`${selector} never showed "${text}"; it shows: ${actual.slice(0, 300)}`, { cause: error });
    });
}

export interface Shown {
  text: string;
  px: number;
}

/** The on-screen font size (CSS size × the chart's scale) of each element matching `selector` that is visible in the chart. */
export function sizesOnScreen(page: Page, selector: string): Promise<Shown[]> {
  return page.$$eval(selector, (elements) => {
    const chart = document.querySelector('svg.chart')!.getBoundingClientRect();
    return elements.flatMap((element) => {
      const box = element.getBoundingClientRect();
      const text = element.textContent?.trim() ?? '';
      if (!text || box.width === 0 || getComputedStyle(element).display === 'none') return [];
      if (box.right <= chart.left || box.left >= chart.right || box.bottom <= chart.top || box.top >= chart.bottom) return [];
      return [{ text, px: parseFloat(getComputedStyle(element).fontSize) * (element as SVGGraphicsElement).getScreenCTM()!.a }];
    });
  });
}

/** Waits until the chart's camera has stopped moving (it animates for about a third of a second). */
export async function settled(page: Page): Promise<void> {
  let last = '';
  for (let tries = 0; tries < 50; tries++) {
    await page.waitForTimeout(120);
    const now = (await page.getAttribute('svg.chart .viewport', 'transform')) ?? '';
    if (now === last) return;
    last = now;
  }
}
