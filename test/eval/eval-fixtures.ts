import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { makeTempDir } from '../../testing/temp-dir.js';

const TEST_HEAD = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\n";

/** Small, fast JavaScript tasks with simulated models, plus tasks whose model crashes or hangs its process. */
export const TASKS: Record<string, { task: unknown; files: Record<string, string> }> = {
  add: {
    task: {
      prompt: 'Fix calc.js so the tests pass.',
      test_cmd: 'node --test',
      check_cmd: 'node --test',
      timeout_s: 30,
      simulated_model: 'finish-without-verifying',
      simulation: {
        inspect: ['calc.js'],
        fixes: [
          { path: 'calc.js', old: 'return a - b;', new: 'return a + b;' },
          { path: 'calc.js', old: 'return b - a;', new: 'return a - b;', reveal: 'sub subtracts' },
        ],
      },
    },
    files: {
      'package.json': '{ "type": "module" }\n',
      'calc.js': 'export function add(a, b) {\n  return a - b;\n}\n\nexport function sub(a, b) {\n  return b - a;\n}\n',
      'calc.test.js': `${TEST_HEAD}import { add, sub } from './calc.js';\ntest('add', () => assert.equal(add(2, 3), 5));\ntest('sub', () => assert.equal(sub(5, 3), 2, 'sub subtracts'));\n`,
    },
  },
  shout: {
    task: {
      prompt: 'shout() must upper-case.',
      test_cmd: 'node --test',
      check_cmd: 'node --test',
      timeout_s: 30,
      simulated_model: 'careful',
      simulation: { inspect: ['shout.js'], fixes: [{ path: 'shout.js', old: 'toLowerCase', new: 'toUpperCase' }] },
    },
    files: {
      'package.json': '{ "type": "module" }\n',
      'shout.js': "export const shout = (text) => text.toLowerCase() + '!';\n",
      'shout.test.js': `${TEST_HEAD}import { shout } from './shout.js';\ntest('shout', () => assert.equal(shout('hi'), 'HI!'));\n`,
    },
  },
  crash: {
    task: { prompt: 'Anything.', test_cmd: 'true', check_cmd: 'true', timeout_s: 30, simulated_model: './crash-model.mjs' },
    files: {},
  },
  hang: {
    task: { prompt: 'Anything.', test_cmd: 'true', check_cmd: 'true', timeout_s: 1, simulated_model: './hang-model.mjs' },
    files: {},
  },
};

const MODULES: Record<string, string> = {
  // Kills its own worker process at the first model call: a crash the harness cannot report.
  'crash/crash-model.mjs': "export default () => () => { process.kill(process.pid, 'SIGKILL'); };\n",
  // Blocks the worker's event loop, so even the harness's own clock cannot end the run.
  'hang/hang-model.mjs': 'export default () => () => { for (;;) { /* spin */ } };\n',
};

/** Writes a task set with the named tasks (and a broken task.json when asked) to a temp dir. */
export function writeTaskSet(names: readonly string[], { broken = false } = {}): string {
  const root = makeTempDir('rein-eval-tasks-', { until: 'exit' });
  for (const name of names) {
    const { task, files } = TASKS[name]!;
    mkdirSync(join(root, name, 'repo'), { recursive: true });
    writeFileSync(join(root, name, 'task.json'), JSON.stringify(task, null, 2));
    for (const [path, content] of Object.entries(files)) writeFileSync(join(root, name, 'repo', path), content);
  }
  for (const [path, content] of Object.entries(MODULES)) {
    if (names.includes(dirname(path))) writeFileSync(join(root, path), content);
  }
  if (broken) {
    mkdirSync(join(root, 'broken', 'repo'), { recursive: true });
    writeFileSync(join(root, 'broken', 'task.json'), JSON.stringify({ prompt: 'x', test_cmd: 'y' }));
  }
  return root;
}

/** Checks that an HTML text's tags are balanced (void elements aside) and returns the element names seen. */
export function checkHtml(html: string): string[] {
  const voids = new Set(['meta', 'br', 'img', 'input', 'link', 'hr']);
  const stack: string[] = [];
  const seen: string[] = [];
  for (const match of html.replace(/<!doctype[^>]*>/i, '').matchAll(/<(\/?)([a-zA-Z][\w-]*)([^>]*?)(\/?)>/g)) {
    const [, closing, name, , selfClosing] = match;
    const tag = name!.toLowerCase();
    seen.push(tag);
    if (selfClosing || (voids.has(tag) && !closing)) continue;
    if (!closing) {
      stack.push(tag);
      continue;
    }
    const open = stack.pop();
    if (open !== tag) throw new Error(`</${tag}> closes <${open}>`);
  }
  if (stack.length > 0) throw new Error(`unclosed: ${stack.join(', ')}`);
  return seen;
}
