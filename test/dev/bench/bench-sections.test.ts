import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { CacheFigures } from '../../../dev/bench/prefix-cache.js';
import { type BenchSection, renderSection } from '../../../dev/bench/section.js';
import { describeCachePairs, describeReuseTrade } from '../../../dev/bench/sections/prompt-cache.js';
import { describeWarmOverhead } from '../../../dev/bench/sections/sandbox-overhead.js';
import { writeSections } from '../../../dev/bench/write-figures.js';
import { makeTempDir, removeTempDirs } from '../../../testing/temp-dir.js';

afterEach(removeTempDirs);

const section: BenchSection = { id: 'demo', title: 'Demo figures', run: async () => ({ tables: [] }) };

function figures(policy: string, prefixReuse: number, promptTokens: number, estimatedCost: number, costWithoutCache: number): CacheFigures {
  return {
    policy,
    requests: 10,
    prefixReuse,
    peakShare: 0.6,
    promptTokens,
    cachedTokens: 0,
    summaries: 0,
    summaryTokens: 0,
    allTokens: promptTokens,
    estimatedCost,
    costWithoutCache,
  };
}

describe('bench sections', () => {
  it('a section prints its heading, tables, notes and provenance between its own markers', () => {
    const text = renderSection(
      3,
      section,
      { tables: [{ headers: ['steps', 'ms'], rows: [[100, '0.5']] }], notes: ['One.', 'Two.'] },
      'Printed by npm run bench.',
    );
    expect(text).toBe(
      [
        '<!-- bench:demo -->',
        '### 3. Demo figures',
        '',
        '| steps | ms  |',
        '|-------|-----|',
        '|   100 | 0.5 |',
        '',
        'One. Two.',
        '',
        '_Printed by npm run bench._',
        '<!-- /bench:demo -->',
      ].join('\n'),
    );
  });

  it('--write replaces the blocks of the sections run, keeps the others, and adds a new section before the end marker', () => {
    const path = join(makeTempDir('rein-bench-doc-'), 'benchmarks.md');
    writeFileSync(
      path,
      'intro\n<!-- figures:start -->\n<!-- bench:a -->\nold a\n<!-- /bench:a -->\n\n<!-- bench:b -->\nold b\n<!-- /bench:b -->\n<!-- figures:end -->\nmethods $1\n',
    );
    writeSections(pathToFileURL(path), [
      { id: 'a', text: '<!-- bench:a -->\nnew a $&\n<!-- /bench:a -->' },
      { id: 'c', text: '<!-- bench:c -->\nnew c\n<!-- /bench:c -->' },
    ]);
    expect(readFileSync(path, 'utf8')).toBe(
      'intro\n<!-- figures:start -->\n<!-- bench:a -->\nnew a $&\n<!-- /bench:a -->\n\n<!-- bench:b -->\nold b\n<!-- /bench:b -->\n<!-- bench:c -->\nnew c\n<!-- /bench:c -->\n\n<!-- figures:end -->\nmethods $1\n',
    );
  });

  it('--write puts a section new to the document before the total line, which stays last', () => {
    const path = join(makeTempDir('rein-bench-doc-'), 'benchmarks.md');
    writeFileSync(
      path,
      '<!-- figures:start -->\n<!-- bench:a -->\na\n<!-- /bench:a -->\n\n<!-- bench:total -->\nold total\n<!-- /bench:total -->\n<!-- figures:end -->\n',
    );
    writeSections(pathToFileURL(path), [
      { id: 'c', text: '<!-- bench:c -->\nc\n<!-- /bench:c -->' },
      { id: 'total', text: '<!-- bench:total -->\nnew total\n<!-- /bench:total -->' },
    ]);
    expect(readFileSync(path, 'utf8')).toBe(
      '<!-- figures:start -->\n<!-- bench:a -->\na\n<!-- /bench:a -->\n\n<!-- bench:c -->\nc\n<!-- /bench:c -->\n\n<!-- bench:total -->\nnew total\n<!-- /bench:total -->\n<!-- figures:end -->\n',
    );
  });

  it('the prompt-cache text names every row and says where rein sends more tokens and where it is dearer without a cache', () => {
    const notes = describeCachePairs([
      { steps: 100, charsPerToken: 4, rein: figures('rein', 0.912, 1_352_163, 0.74, 4.06), seed: figures('seed', 0.4, 822_039, 1.59, 2.47) },
      { steps: 500, charsPerToken: 4, rein: figures('rein', 0.919, 7_902_204, 4.17, 23.73), seed: figures('seed', 0.701, 8_046_440, 9.23, 24.14) },
    ]).join(' ');
    expect(notes).toContain(
      '100 steps at 4 chars/token: 91.2% vs 40.0% reuse, 1,352,163 vs 822,039 prompt tokens; 500 steps at 4 chars/token: 91.9% vs 70.1% reuse, 7,902,204 vs 8,046,440 prompt tokens.',
    );
    expect(notes).toContain("rein sends more prompt tokens than the seed's schedule at 100 steps at 4 chars/token.");
    expect(notes).toContain(
      'Its estimated cost is lower in every case with the cache discount; without a prompt cache it would cost more at 100 steps at 4 chars/token.',
    );
    const everywhereCheaper = describeCachePairs([
      { steps: 100, charsPerToken: 2.5, rein: figures('rein', 0.9, 100, 1, 2), seed: figures('seed', 0.5, 200, 2, 3) },
    ]).join(' ');
    expect(everywhereCheaper).toContain("rein sends fewer prompt tokens than the seed's schedule in every case.");
    expect(everywhereCheaper).toContain('with the cache discount, and without a prompt cache too.');
  });

  it('the reuse trade names where the tuned rules reach the target and what they cost against the defaults', () => {
    const rein = figures('rein', 0.85, 100, 1, 2);
    const dearer = describeReuseTrade(
      [
        { steps: 100, charsPerToken: 4, rein, tuned: figures('tuned', 0.88, 120, 1.1, 2.6) },
        { steps: 300, charsPerToken: 4, rein, tuned: figures('tuned', 0.93, 120, 1.02, 2.5) },
      ],
      'growth 0.4',
    );
    expect(dearer).toBe(
      'Tuned for reuse (growth 0.4), rein reuses 88.0% to 93.0% of its prompts (90.0% or more at 300 steps at 4 chars/token), ' +
        'at 1.02x to 1.10x the cost of its defaults with the cache discount and 1.25x to 1.30x without: the defaults cost less in every case, with a prompt cache and without one.',
    );
    const once = describeReuseTrade([{ steps: 100, charsPerToken: 2.5, rein, tuned: figures('tuned', 0.86, 90, 0.9, 2.2) }], 'growth 0.4');
    expect(once).toBe(
      'Tuned for reuse (growth 0.4), rein reuses 86.0% of its prompts (90.0% or more in no case), at 0.90x the cost of its defaults with the cache discount and 1.10x without.',
    );
  });

  it("the sandbox text judges each command's warm overhead against the 5 ms target, names bash's share and the cost of calls in a row", () => {
    const row = (path: string, command: string, overMs: number, overBashMs: number) => ({ path, command, medianMs: 20, p90Ms: 25, overMs, overBashMs });
    const rows = [
      row('bare sh -c (no sandbox, no process group)', 'true', 0, -2),
      row('warm sandbox, bubblewrap', 'true', 5, 3),
      row('warm sandbox, bubblewrap', 'head', 6.26, 4.1),
      row('warm, unsandboxed', 'true', 1, -1),
    ];
    expect(describeWarmOverhead(rows)).toBe(
      'After a model turn, the warm sandbox (bubblewrap) takes 5.0 to 6.3 ms more than a bare sh -c of the same command in this run (target: within 5 ms more; met for 1 of 2 commands), ' +
        "and 3.0 to 4.1 ms more than a bare bash -c, the shell rein runs every command in (the difference between the two is bash's start-up against sh's).",
    );
    const faster = [
      row('warm sandbox, bubblewrap', 'true', -2.64, -4.5),
      row('warm sandbox, bubblewrap', 'head', -1.9, 0.4),
      row('warm sandbox, bubblewrap, second in a row', 'true', 0.4, -1),
    ];
    expect(describeWarmOverhead(faster)).toBe(
      'After a model turn, the warm sandbox (bubblewrap) takes 1.9 to 2.6 ms less than a bare sh -c of the same command in this run (target: within 5 ms more; met for 2 of 2 commands), ' +
        "and from 4.5 ms less to 0.4 ms more than a bare bash -c, the shell rein runs every command in (the difference between the two is bash's start-up against sh's). " +
        'The second tool call of one reply, with no model turn before it, takes 0.4 ms more than a bare sh -c.',
    );
    // A difference that rounds to zero is not "less".
    const even = [row('warm sandbox, bubblewrap', 'true', -0.02, -1), row('warm sandbox, bubblewrap', 'head', 1.1, 0)];
    expect(describeWarmOverhead(even)).toMatch(/^After a model turn, the warm sandbox \(bubblewrap\) takes 0\.0 to 1\.1 ms more than a bare sh -c/);
    expect(describeWarmOverhead(rows.filter((one) => !one.path.startsWith('warm sandbox')))).toMatch(/^bubblewrap is not available here/);
  });
});
