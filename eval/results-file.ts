import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UsageError } from 'rein/lib';
import { readJsonLines } from 'rein/run';
import { type RunRecord, runRecordSchema } from './run-record.js';

export const RESULTS_FILE = 'results.jsonl';

/** The results file of an eval output dir, or the path itself when it is a file. */
function resultsPathOf(path: string): string {
  return existsSync(path) && statSync(path).isDirectory() ? join(path, RESULTS_FILE) : path;
}

/**
 * Reads `results.jsonl` (or an eval dir): every line that is a run record.
 * A cut last line (the eval was killed while writing) and foreign lines are
 * skipped and counted, never fatal.
 *
 * @example const { records } = readResults('eval-out');
 */
export function readResults(path: string): { records: RunRecord[]; skipped: number } {
  const file = resultsPathOf(path);
  if (!existsSync(file)) return { records: [], skipped: 0 };
  const parsed = readJsonLines<unknown>(file);
  const records: RunRecord[] = [];
  let skipped = parsed.bad.length;
  for (const value of parsed.values) {
    const record = runRecordSchema.safeParse(value);
    if (record.success) records.push(record.data);
    else skipped++;
  }
  return { records, skipped };
}

/** Reads results that must exist (for `rein compare`); a file with none readable says how many lines it could not read. */
export function readResultsOrFail(path: string, warn: (text: string) => void = () => undefined): RunRecord[] {
  const file = resultsPathOf(path);
  if (!existsSync(file)) throw new UsageError(`no results at ${path} (expected a results.jsonl or an eval output directory)`);
  const { records, skipped } = readResults(file);
  if (records.length === 0) {
    throw new UsageError(
      `no run records in ${file}${skipped > 0 ? `: ${skipped} line(s) are not rein eval results (one JSON object per run, as rein eval writes them)` : ' (it is empty)'}`,
    );
  }
  if (skipped > 0) warn(`rein compare: ${file}: skipped ${skipped} line(s) that are not run records`);
  return records;
}

/**
 * Opens `results.jsonl` for appending one line per finished run, written
 * synchronously so a killed eval keeps every finished run. A line cut by an
 * earlier kill is dropped first, so the next line starts clean.
 */
export function openResultsWriter(file: string): { append(record: RunRecord): void; close(): void } {
  mkdirSync(dirname(file), { recursive: true });
  if (existsSync(file)) {
    const text = readFileSync(file, 'utf8');
    if (text.length > 0 && !text.endsWith('\n')) writeFileSync(file, text.slice(0, text.lastIndexOf('\n') + 1));
  }
  // One write(2) per line, unbuffered: a line is on disk before the next run is reported.
  const fd = openSync(file, 'a');
  let open = true;
  return {
    append(record) {
      if (open) writeSync(fd, JSON.stringify(record) + '\n');
    },
    close() {
      if (open) {
        open = false;
        closeSync(fd);
      }
    },
  };
}
