import { type BenchSection, times } from '../section.js';
import { measureStartup, startupCases } from '../startup.js';

const ROUNDS = 7;

/** Start-up time and peak RSS of rein's entry points beside a bare Node, each in a fresh process. */
export const startupSection: BenchSection = {
  id: 'startup',
  title: `Start-up and peak RSS beside a bare Node, each in a fresh process (median of ${ROUNDS} rounds taken in rotation)`,
  async run() {
    const rows = await measureStartup(startupCases(), ROUNDS);
    const bare = rows[0]!;
    const library = rows[1]!;
    const everything = rows.at(-1)!;
    const demo = rows.find((row) => row.name.startsWith('rein demo ('))!;
    const unbundledDemo = rows.find((row) => row.name.startsWith('rein demo from'))!;
    return {
      tables: [
        {
          headers: ['process', 'wall ms', 'vs bare node', 'peak RSS MB', 'vs bare node'],
          rows: rows.map((row) => [
            row.name,
            row.wallMs.toFixed(0),
            times(row.wallMs / bare.wallMs),
            row.peakRssMb.toFixed(1),
            times(row.peakRssMb / bare.peakRssMb),
          ]),
        },
      ],
      notes: [
        `Loading the library adds ${(library.wallMs - bare.wallMs).toFixed(0)} ms and ${(library.peakRssMb - bare.peakRssMb).toFixed(1)} MB to a bare Node;`,
        `importing everything rein ships at once would add ${(everything.wallMs - bare.wallMs).toFixed(0)} ms and ${(everything.peakRssMb - bare.peakRssMb).toFixed(1)} MB.`,
        `The launcher runs the CLI's bundle (cli/dist/bundle): rein demo takes ${demo.wallMs.toFixed(0)} ms and ${demo.peakRssMb.toFixed(1)} MB with it,`,
        `${unbundledDemo.wallMs.toFixed(0)} ms and ${unbundledDemo.peakRssMb.toFixed(1)} MB from the compiled modules of cli/dist.`,
      ],
    };
  },
};
