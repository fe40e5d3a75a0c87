import { measureOtelOverhead } from '../otel-overhead.js';
import { type BenchSection, times } from '../section.js';

const STEPS = 300;

/** What live span export costs the harness per step. */
export const otelOverheadSection: BenchSection = {
  id: 'otel',
  title: `Live OpenTelemetry export (--otel): harness overhead per step, ${STEPS}-step runs, median of 3 alternating rounds`,
  async run() {
    const rows = await measureOtelOverhead(STEPS);
    const off = rows[0]!.msPerStep;
    return {
      tables: [
        {
          headers: ['export', 'ms/step', 'vs off', 'spans received', 'end-of-run wait ms'],
          rows: rows.map((row) => [
            row.setting,
            row.msPerStep.toFixed(3),
            times(row.msPerStep / off),
            row.setting === 'collector on loopback' ? row.spans : '-',
            Math.round(row.endWaitMs),
          ]),
        },
      ],
    };
  },
};
