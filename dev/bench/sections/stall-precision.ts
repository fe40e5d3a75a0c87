import type { BenchSection } from '../section.js';
import { measureStallPrecision } from '../stall-precision.js';

/** The stall detector on labelled behaviours: loops it must end, progress it must never stop. */
export const stallPrecisionSection: BenchSection = {
  id: 'stall',
  title: 'Stall detector precision on labelled behaviours (bench/stall-behaviours.ts, through the real machine; steps are model replies)',
  async run() {
    const result = measureStallPrecision();
    return {
      tables: [
        {
          headers: ['behaviour', 'kind', 'ended', 'nudges', 'first nudge at', 'seed rules first nudge at', 'ended at'],
          rows: result.rows.map((row) => [
            row.behaviour,
            row.kind,
            row.status,
            row.nudges,
            row.firstNudge ?? '-',
            row.seedFirstNudge ?? 'never',
            row.endedAt ?? '-',
          ]),
        },
      ],
      notes: [
        `False stops on progress: ${result.falseStops}; loops ended: ${result.loopsEnded}/${result.loops}; loops first nudged later than the seed's rules would: ${result.laterThanSeed}.`,
      ],
    };
  },
};
