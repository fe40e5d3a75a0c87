import type { TraceRecord as TraceLine } from 'rein/formats';

/**
 * A trace file's text as its lines: each JSON object line in order, and the 1-based numbers of the lines that are
 * not one (a cut last line of a killed run, a damaged line), which the export reports rather than fails on.
 *
 * @example parseTrace('{"kind":"start"}\n{cut').skipped // [2]
 */
export function parseTrace(text: string): { lines: TraceLine[]; skipped: number[] } {
  const lines: TraceLine[] = [];
  const skipped: number[] = [];
  text.split('\n').forEach((raw, index) => {
    if (raw.trim() === '') return;
    try {
      const value = JSON.parse(raw) as unknown;
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) lines.push(value as TraceLine);
      else skipped.push(index + 1);
    } catch {
      skipped.push(index + 1);
    }
  });
  return { lines, skipped };
}
