import { BEHAVIOURS, runBehaviour, seedFirstNudge } from './stall-behaviours.js';

/** One row of the stall-precision table. */
interface StallPrecisionRow {
  behaviour: string;
  kind: 'progress' | 'loop';
  status: string;
  nudges: number;
  firstNudge: number | null;
  seedFirstNudge: number | null;
  endedAt: number | null;
}

/**
 * The stall detector on the labelled behaviours (bench/stall-behaviours.ts),
 * run through the real machine: per behaviour, how it ended, the nudges it
 * got, when the first came (and when the seed's reference rules would have
 * sent theirs) and when a loop was ended. Precision: progress never ended;
 * recall: every loop ended.
 */
export function measureStallPrecision(): { rows: StallPrecisionRow[]; falseStops: number; loopsEnded: number; loops: number; laterThanSeed: number } {
  const rows = BEHAVIOURS.map((behaviour): StallPrecisionRow => {
    const outcome = runBehaviour(behaviour);
    return {
      behaviour: behaviour.name,
      kind: behaviour.kind,
      status: outcome.status,
      nudges: outcome.nudges.length,
      firstNudge: outcome.firstNudge,
      seedFirstNudge: seedFirstNudge(behaviour),
      endedAt: outcome.status === 'stalled' ? outcome.steps : null,
    };
  });
  const loops = rows.filter((row) => row.kind === 'loop');
  return {
    rows,
    falseStops: rows.filter((row) => row.kind === 'progress' && row.status === 'stalled').length,
    loopsEnded: loops.filter((row) => row.status === 'stalled').length,
    loops: loops.length,
    laterThanSeed: loops.filter((row) => row.seedFirstNudge !== null && (row.firstNudge === null || row.firstNudge > row.seedFirstNudge)).length,
  };
}
