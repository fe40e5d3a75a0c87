import type { BenchSection } from '../section.js';
import { measureViewConstruction } from '../view-construction.js';

/** rein's incremental view builder against the seed's rebuild of the whole view every step. */
export const viewConstructionSection: BenchSection = {
  id: 'view',
  title: 'View construction per step: rein (incremental) vs seed (rebuild and re-measure every step)',
  async run() {
    const rows = [100, 1000, 5000].map((steps) => measureViewConstruction(steps));
    const ratios = rows.map((row) => row.seedMicros / row.reinMicros);
    return {
      tables: [
        {
          headers: ['steps', 'rein µs/step', 'seed µs/step', 'seed / rein'],
          rows: rows.map((row, index) => [row.steps, row.reinMicros.toFixed(2), row.seedMicros.toFixed(2), `${ratios[index]!.toFixed(1)}x`]),
        },
      ],
      notes: [
        `A step at ${rows.at(-1)!.steps} steps costs ${(rows.at(-1)!.seedMicros / rows[0]!.seedMicros).toFixed(1)}x a step at ${rows[0]!.steps} for the seed's rebuild ` +
          `and ${(rows.at(-1)!.reinMicros / rows[0]!.reinMicros).toFixed(1)}x for rein's incremental view.`,
      ],
    };
  },
};
