import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHarnessMachine, defaultRules, probeHarness, ran, rulesSchema } from 'rein/testing/index.js';
import { describe, expect, it } from 'vitest';
import { cleanEnv, repoRoot, runCli } from '../helpers/cli.js';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

describe('README', () => {
  it('names the two fresh-machine commands, and CI runs the second exactly', () => {
    const block = /## Two commands[\s\S]*?```sh\n([\s\S]*?)\n```/.exec(readme)?.[1] ?? '';
    const commands = block.split('\n').map((line) => line.replace(/#.*$/, '').trim());
    expect(commands).toEqual(['npm ci && npm run demo', 'bash test/run.sh']);
    // CI runs the README's test command, exactly: a fresh machine and CI set up the same way.
    const ci = readFileSync(join(repoRoot, '.ci', 'run'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() && !line.startsWith('#'));
    expect(ci.at(-1)).toBe(`exec ${commands[1]}`);
  });

  it('is a front door: at most 300 lines, with a line in its map for every top-level entry of the repository', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: repoRoot, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
    const topLevel = [...new Set(tracked.map((path) => path.split('/')[0]!))];
    const house = /## The house[\s\S]*?\n\|[\s\S]*?(?=\n\n|$)/.exec(readme)?.[0] ?? '';
    const named = new Set([...house.matchAll(/`([^`]+?)\/?`/g)].map((match) => match[1]!));
    expect(topLevel.filter((entry) => !named.has(entry))).toEqual([]);
    expect(topLevel.length).toBeLessThanOrEqual(24);
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

  // The example in the tour, as written there.
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
