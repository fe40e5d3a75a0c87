import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, createHarnessMachine, defaultRules, loadRules, makeTempDir, probeHarness, ran, reply, rulesSchema, runScripted } from 'rein/testing/index.js';
import { describe, expect, it } from 'vitest';
import { readmeSections } from '../../dev/docs-sections/readme-sections.js';
import { cleanEnv, repoRoot, runCli } from '../helpers/cli.js';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

describe('README', () => {
  it.each(Object.entries(readmeSections()))('its %s reference is generated from the code it describes', (name, text) => {
    const block = new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)\\n<!-- ${name}:end -->`).exec(readme)?.[1];
    expect(block, `README.md's ${name} section is out of date: run \`npm run docs:readme\``).toBe(text);
  });

  it('names the two fresh-machine commands, and every file it links exists', () => {
    const block = /## Two commands[\s\S]*?```sh\n([\s\S]*?)\n```/.exec(readme)?.[1] ?? '';
    const commands = block.split('\n').map((line) => line.replace(/#.*$/, '').trim());
    expect(commands).toEqual(['npm ci && npm run demo', 'bash test/run.sh']);
    // CI runs the README's test command, exactly: a fresh machine and CI set up the same way.
    const ci = readFileSync(join(repoRoot, '.ci', 'run'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() && !line.startsWith('#'));
    expect(ci.at(-1)).toBe(`exec ${commands[1]}`);
    const links = [...readme.matchAll(/\]\(((?!https?:|#)[^)\s]+)\)/g)].map((match) => match[1]!);
    expect(links.length).toBeGreaterThan(20);
    for (const link of links) expect(existsSync(join(repoRoot, link)), link).toBe(true);
  });

  it('shows what `rein demo` really prints', async () => {
    const shown = /```\n(\[rein\] step 1[\s\S]*?)\n```/.exec(readme)?.[1];
    expect(shown, 'README.md has no demo transcript').toBeDefined();
    const demo = await runCli(['demo'], { env: cleanEnv() });
    expect(demo.code, demo.stderr).toBe(0);
    const printed = `${demo.stdout}\n${demo.stderr}`.split('\n').filter((line) => line.startsWith('[rein] step') || line.startsWith('rein: done'));
    // Token counts depend on timing text in the test output (durations), so they are compared by shape.
    const tokens = /\d+ prompt tokens \(\d+ cached\), \d+ completion tokens/g;
    expect(printed.join('\n').replace(tokens, 'N')).toBe(shown!.replace(tokens, 'N'));
  });

  // The example in "Changing the rules", as written there.
  it('its test-kit example passes, and fails on the default rules', () => {
    const poll = (rules: ReturnType<typeof rulesSchema.parse>, times: number) => {
      const machine = createHarnessMachine(rules);
      const probe = probeHarness(machine, rules, { at: 'build.think' });
      const nudges = [];
      for (let turn = 0; turn < times; turn++) {
        if (probe.state.endsWith('compact')) probe.contextReady();
        probe.reply({ calls: [{ name: 'run', args: { command: 'curl -s localhost:3000/health' } }] });
        const step = probe.tools([ran('curl -s localhost:3000/health', 0, 'ok')]);
        nudges.push(...step.notes.filter((note) => note.kind === 'stall'));
      }
      return nudges;
    };
    expect(readme).toContain('expect(poll(5)).toEqual([]);\n  expect(poll(6)).toHaveLength(1);');
    const rules = rulesSchema.parse({ stall: { rules: [{ guard: 'repeatedAction', limit: 6 }] } });
    expect(poll(rules, 5)).toEqual([]);
    expect(poll(rules, 6)).toHaveLength(1);
    // With the default limit of 3 the same polling is nudged: the rule change is what made the difference.
    expect(poll(defaultRules(), 5)).not.toEqual([]);
  });
});

describe('README: Extending rein (each example is a file in the repo, run here)', () => {
  it.each(['docs/cookbook/review-before-finish.json', 'docs/examples/rules-module.ts', 'docs/examples/start-run.ts'])(
    '%s is shown as it is in the repo',
    (path) => {
      const shown = new RegExp(`<!-- example:${path.replace(/\./g, '\\.')} -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\\n\`\`\``).exec(readme)?.[1];
      expect(shown, `README.md shows ${path}`).toBe(readFileSync(join(repoRoot, path), 'utf8').trimEnd().replaceAll("'../../index.js'", "'rein'"));
    },
  );

  it('the rules module: its tool runs unlisted, its action speaks on entering build, and its guard tells the model why the gate refused', async () => {
    const loaded = await loadRules({ configPath: join(repoRoot, 'docs', 'examples', 'rules-module.ts') });
    const run = await runScripted({
      files: { 'a.js': 'export const a = 1;\n', 'CHANGELOG.md': '# Changes\n' },
      testCmd: 'true',
      rules: loaded.rules,
      guards: loaded.guards,
      actions: loaded.actions,
      tools: loaded.tools,
      script: [
        reply(call('count_lines', { text: 'one\ntwo' }), call('edit_file', { path: 'a.js', old: '= 1', new: '= 2' })),
        reply(call('run', { command: 'true' }), call('finish', { summary: 'done' })),
        reply(
          call('edit_file', { path: 'CHANGELOG.md', old: '# Changes', new: '# Changes\n- a is 2' }),
          call('run', { command: 'true' }),
          call('finish', { summary: 'done' }),
        ),
      ],
    });
    const results = run.record.filter((message) => message.role === 'tool').map((message) => String(message.content));
    expect(results[0]).toBe('2 lines');
    expect(results.filter((text) => text.startsWith('Not yet: add a line about your change to CHANGELOG.md.'))).toHaveLength(1);
    expect(run.record.some((message) => message.role === 'user' && String(message.content).includes('Open todo items: 0.'))).toBe(true);
    expect(run.output.status).toBe('done');
  });

  it('startRun from your own code runs a harness to its end', async () => {
    const { runHarness } = await import('../../docs/examples/start-run.js');
    const workspace = makeTempDir();
    writeFileSync(join(workspace, 'a.test.js'), "import test from 'node:test';\ntest('ok', () => {});\n");
    const result = await runHarness(workspace, makeTempDir(), [
      reply(call('run', { command: 'node --test' })),
      reply(call('finish', { summary: 'The tests pass.' })),
    ]);
    expect(result.status).toBe('done');
    expect(existsSync(result.trace)).toBe(true);
  });
});
