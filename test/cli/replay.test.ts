import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, repoRoot, runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/workspace.js';

const fixtures = join(repoRoot, 'test', 'fixtures', 'replay');
const oldDefaults = join(repoRoot, 'cli', 'replay', 'rules', 'rein-0.1.0-stall.json');

/** A compact realtraj run of eight new reads and then the edit (the case), and a run that re-reads one page. */
function compactSet(dir: string): string {
  const step = (tool: string, args: object, head: string) => ({ tool, args, out_len: head.length, out_head: head, out_nhash: head, exit: 0 });
  const explore = {
    source: 'demo',
    system: 'mini-swe-agent',
    instance: 'demo__explore-1',
    resolved: true,
    exit_status: 'submitted',
    steps: [
      ...Array.from({ length: 8 }, (_, index) =>
        step(index % 2 ? 'grep' : 'read_file', index % 2 ? { pattern: `p${index}` } : { path: `f${index}.py` }, `new text ${index}`),
      ),
      { tool: 'edit_file', args: { path: 'f0.py', old: 'a', new: 'b' }, out_len: 0, out_head: '', write: 'replace', applied: true },
    ],
  };
  const loop = {
    source: 'demo',
    instance: 'demo__loop-1',
    resolved: false,
    exit_status: 'cost_limit',
    steps: Array.from({ length: 30 }, () => step('read_file', { path: 'a.py' }, 'same page')),
  };
  const file = join(dir, 'runs.jsonl');
  writeFileSync(file, `${JSON.stringify(explore)}\n${JSON.stringify(loop)}\nnot json\n`);
  return file;
}

describe('rein replay', () => {
  it('reports per run and in total what the rules would have done, and names the skipped line', async () => {
    const dir = makeTempDir('rein-replay-cli-');
    const result = await runCli(['replay', compactSet(dir), '--runs'], { env: cleanEnv() });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('read 2 runs (realtraj 2)');
    expect(result.stdout).toMatch(/skipped 1:\n {2}.*runs\.jsonl:3: not JSON/);
    expect(result.stdout).toContain('resolved runs nudged: 0 of 1 (0.0%)');
    expect(result.stdout).toContain('runs stopped as stalled: 1; resolved runs stopped (false stops): 0');
    expect(result.stdout).toMatch(/runs that ended on a limit and were stopped: 1, saving \d+ actions/);
    expect(result.stdout).toMatch(/demo\/demo__loop-1 \[unresolved, 30 actions\] repeatedAction@3 .*STOP@\d+/);
  });

  it('--compare shows the runs a rules change affects, with the actions around each nudge, and --out writes the report and replay pages', async () => {
    const dir = makeTempDir('rein-replay-cli-');
    const out = join(dir, 'out');
    const result = await runCli(['replay', compactSet(dir), '--rules', oldDefaults, '--compare', 'default', '--out', out], { env: cleanEnv() });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /demo\/demo__explore-1 \(resolved\)\n {2}- longExploration at step 8 \(while learning\)\n(?: {6}.*\n){2} {6}> 8\. grep p7\n {8}9\. edit_file f0\.py/,
    );
    const report = readFileSync(join(out, 'report.html'), 'utf8');
    expect(report).toContain('<h1>rein replay:');
    const page = report.match(/href="(runs\/[^"]+\.replay\.html)"/)?.[1];
    expect(page).toBeDefined();
    expect(existsSync(join(out, page!))).toBe(true);
  });

  it('reads the other formats from a directory, and --json gives the figures', async () => {
    const result = await runCli(['replay', fixtures, '--json'], { env: cleanEnv() });
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout) as {
      formats: Record<string, number>;
      skipped: Array<{ why: string }>;
      a: { summary: { unmapped: Record<string, number> } };
    };
    expect(json.formats).toEqual({ ATIF: 1, 'SWE-agent': 3, 'mini-swe-agent': 6, OpenHands: 4, 'openai-chat': 3 });
    expect(json.skipped).toHaveLength(1);
    // OpenHands' think tool and a browser tool have no entry in the action map: replayed as run, and counted.
    expect(json.a.summary.unmapped).toEqual({ browser_open: 1, think: 2 });
  });

  it('a path that does not exist is a usage error', async () => {
    const result = await runCli(['replay', join(makeTempDir('rein-replay-cli-'), 'nope')], { env: cleanEnv() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/rein replay: .*nope: no such file or directory/);
  });
});
