import { formatTable } from './table.js';

/** A table of figures: printed in the terminal and written to docs/benchmarks.md as Markdown. */
interface BenchTable {
  headers: string[];
  rows: Array<Array<string | number>>;
}

/** What a section measured: its tables, and sentences whose every figure comes from the same run. */
interface SectionResult {
  tables: BenchTable[];
  /** Plain sentences built from this run's figures (never typed-in numbers). */
  notes?: string[];
}

/** What every section may use. */
interface BenchContext {
  /** Runs at once, for a section that runs whole tasks in parallel. */
  parallel: number;
}

/**
 * One section of `npm run bench`: a file under bench/sections/ that exports
 * it, plus one line in the list in bench/main.ts.
 *
 * @example
 * export const viewSection: BenchSection = {
 *   id: 'view', title: 'View construction per step', run: async () => ({ tables: [{ headers: ['steps'], rows: [[100]] }] }),
 * };
 */
export interface BenchSection {
  /** Short name for `--only`/`--skip` and the markers around the section in docs/benchmarks.md. */
  id: string;
  title: string;
  run(context: BenchContext): Promise<SectionResult>;
}

/** A section's printed block: heading, tables, notes and where the figures come from, between its markers. */
export function renderSection(position: number, section: BenchSection, result: SectionResult, provenance: string): string {
  const parts = [`### ${position}. ${section.title}`, ...result.tables.map((table) => formatTable(table.headers, table.rows))];
  if (result.notes && result.notes.length > 0) parts.push(result.notes.join(' '));
  parts.push(`_${provenance}_`);
  return `<!-- bench:${section.id} -->\n${parts.join('\n\n')}\n<!-- /bench:${section.id} -->`;
}

/** `0.123` → `12.3%`. */
export const percent = (share: number, digits = 1) => `${(share * 100).toFixed(digits)}%`;

/** `1352163` → `1,352,163`. */
/** A ratio as the tables show it: "1.25x". */
export const times = (ratio: number) => `${ratio.toFixed(2)}x`;

export const grouped = (value: number) => Math.round(value).toLocaleString('en-US');

/** `['a', 'b', 'c']` → `a, b and c`. */
export function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
