import { compareMemory } from '../memory.js';
import { type BenchSection, times } from '../section.js';

const LENGTHS = [100, 1000, 5000];

/** Memory of one run with the record on disk (now) and in memory (before), each in a fresh process. */
export const memorySection: BenchSection = {
  id: 'memory',
  title: 'Memory of one run, each in a fresh process (instant model, ~4,000-char tool results, 32K-token window)',
  async run() {
    const rows = await compareMemory(LENGTHS);
    const first = rows[0]!;
    return {
      tables: [
        {
          headers: ['steps', 'record held', 'peak RSS MB', 'vs 100 steps', 'peak heap MB', 'heap held after the run MB', 'vs 100 steps'],
          rows: rows.flatMap((row) =>
            (['now', 'before'] as const).map((mode) => [
              row.steps,
              mode === 'now' ? 'on disk (now)' : 'in memory (before)',
              row[mode].peakRssMb.toFixed(1),
              times(row[mode].peakRssMb / first[mode].peakRssMb),
              row[mode].peakHeapMb.toFixed(1),
              row[mode].retainedHeapMb.toFixed(1),
              times(row[mode].retainedHeapMb / first[mode].retainedHeapMb),
            ]),
          ),
        },
      ],
    };
  },
};
