import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { outputSizeAt, TEST_COMMAND, trajectory, writeWorkspace } from '../../../dev/bench/whole-run/trajectory.js';
import { makeTempDir, removeTempDirs } from '../../../testing/temp-dir.js';

afterEach(removeTempDirs);

const quantile = (sorted: number[], share: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!;

describe('the whole-run bench trajectory', () => {
  it('draws tool outputs from the distribution of real runs: median about 500 characters, p90 about 4 KB, p99 about 16 KB', () => {
    expect(outputSizeAt(0.5)).toBe(500);
    expect(outputSizeAt(0.9)).toBe(4_000);
    expect(outputSizeAt(0.99)).toBe(16_000);
    const dir = makeTempDir('rein-whole-run-');
    writeWorkspace(dir, 150);
    const sizes = readdirSync(join(dir, 'data'))
      .map((name) => statSync(join(dir, 'data', name)).size)
      .sort((a, b) => a - b);
    expect(sizes).toHaveLength(149);
    expect(quantile(sizes, 0.5)).toBeGreaterThan(350);
    expect(quantile(sizes, 0.5)).toBeLessThan(700);
    expect(quantile(sizes, 0.9)).toBeGreaterThan(2_800);
    expect(quantile(sizes, 0.9)).toBeLessThan(5_500);
    expect(sizes.at(-1)).toBeGreaterThan(12_000);
  });

  it('plays the requested number of replies: a plan, commands, edits to a line that exists, tests last, then finish', () => {
    const dir = makeTempDir('rein-whole-run-');
    writeWorkspace(dir, 50);
    const played = trajectory(50);
    expect(played).toHaveLength(50);
    expect(played[0]!.calls[0]!.name).toBe('update_todo');
    expect(played.at(-2)!.calls[0]!.arguments).toEqual({ command: TEST_COMMAND });
    expect(played.at(-1)!.calls.map((call) => call.name)).toEqual(['update_todo', 'finish']);
    const source = readFileSync(join(dir, 'calc.py'), 'utf8');
    const edits = played.flatMap((step) => step.calls.filter((call) => call.name === 'edit_file'));
    expect(edits.length).toBeGreaterThanOrEqual(4);
    for (const edit of edits) expect(source.split(String(edit.arguments.old))).toHaveLength(2);
  });
});
