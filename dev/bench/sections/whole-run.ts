import { type BenchSection, times } from '../section.js';
import { outputSizes } from '../whole-run/trajectory.js';
import { BARE, loopsAt, measureWholeRuns, REIN, type RoundFigures } from '../whole-run/whole-run.js';

const ROUNDS = 7;
const LENGTHS = [10, 50, 150] as const;

/**
 * Issue 44's measurements of rein before this section existed (sandbox on, median of 7), which its targets
 * are fractions of: wall overhead per step at 10 and 150 steps, start-up to the first request.
 */
const BEFORE = { overheadMs: { 10: 145, 150: 24.6 } as Record<number, number>, startupMs: 828 };
/** Between 10 and 150 steps the before-figure is read off overhead = a + b / steps through the two measured points. */
function overheadBefore(steps: number): number {
  const slope = (BEFORE.overheadMs[10]! - BEFORE.overheadMs[150]!) / (1 / 10 - 1 / 150);
  return BEFORE.overheadMs[150]! + slope * (1 / steps - 1 / 150);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** The figures a row shows, per step where it says so. */
const FIGURES = {
  overhead: (run: RoundFigures) => (run.wallMs - run.stub.insideMs - run.commandsMs) / run.steps,
  cpu: (run: RoundFigures) => run.cpuMs / run.steps,
  startup: (run: RoundFigures) => run.startupMs,
  /** Own CPU before the first request, and per step after it: how much of the CPU column is start-up. */
  startupCpu: (run: RoundFigures) => run.startupCpuMs,
  cpuAfterStartup: (run: RoundFigures) => (run.cpuMs - run.startupCpuMs) / run.steps,
  /** Own CPU per step of the threads other than the main one (V8's workers, libuv's pool). */
  otherThreads: (run: RoundFigures) => run.otherThreadsCpuMs / run.steps,
  rss: (run: RoundFigures) => run.peakRssMb,
  prompt: (run: RoundFigures) => run.stub.promptChars,
};
type Figure = keyof typeof FIGURES;

interface Row {
  steps: number;
  loop: string;
  value: Record<Figure, number>;
  /** Median over rounds of this loop's figure / the bare loop's in the same round. */
  vsBare: Record<Figure, number>;
}

function summarize(runs: RoundFigures[]): Row[] {
  return LENGTHS.flatMap((steps) =>
    loopsAt(steps, LENGTHS).map(({ name: loop }) => {
      const mine = runs.filter((run) => run.steps === steps && run.loop === loop);
      const bare = runs.filter((run) => run.steps === steps && run.loop === BARE.name);
      const of = (figure: Figure) => median(mine.map(FIGURES[figure]));
      const ratio = (figure: Figure) => median(mine.map((run, round) => FIGURES[figure](run) / FIGURES[figure](bare[round]!)));
      const figures = Object.keys(FIGURES) as Figure[];
      return {
        steps,
        loop,
        value: Object.fromEntries(figures.map((figure) => [figure, of(figure)])) as Record<Figure, number>,
        vsBare: Object.fromEntries(figures.map((figure) => [figure, ratio(figure)])) as Record<Figure, number>,
      };
    }),
  );
}

/** Each target of issue 44 against this run's figure: what it is, the limit it is measured against, and whether it holds. */
function targetRows(rows: Row[]): Array<Array<string | number>> {
  const rein = (steps: number) => rows.find((row) => row.steps === steps && row.loop === REIN.name)!;
  const verdict = (value: number, limit: number) =>
    value <= limit ? `met (${times(value / limit)} of the target)` : `not met (${times(value / limit)} of the target)`;
  const result: Array<Array<string | number>> = [
    [
      'own CPU per step, 150 steps',
      'at most 1.50x the bare loop',
      times(rein(150).vsBare.cpu),
      `${rein(150).value.cpu.toFixed(1)} ms vs ${(rein(150).value.cpu / rein(150).vsBare.cpu).toFixed(1)} ms`,
      verdict(rein(150).vsBare.cpu, 1.5),
    ],
  ];
  for (const steps of LENGTHS) {
    const limit = 0.7 * overheadBefore(steps);
    result.push([
      `wall overhead per step, ${steps} steps`,
      `at most 0.70x of ${overheadBefore(steps).toFixed(1)} ms (before) = ${limit.toFixed(1)} ms`,
      `${rein(steps).value.overhead.toFixed(1)} ms`,
      `${times(rein(steps).vsBare.overhead)} the bare loop`,
      verdict(rein(steps).value.overhead, limit),
    ]);
  }
  const startup = median(LENGTHS.map((steps) => rein(steps).value.startup));
  const bareStartup = median(LENGTHS.map((steps) => rows.find((row) => row.steps === steps && row.loop === BARE.name)!.value.startup));
  result.push([
    'start-up to the first request',
    `at most 0.65x of ${BEFORE.startupMs} ms (before) = ${(0.65 * BEFORE.startupMs).toFixed(0)} ms`,
    `${startup.toFixed(0)} ms`,
    `${times(startup / bareStartup)} the bare loop`,
    verdict(startup, 0.65 * BEFORE.startupMs),
  ]);
  result.push([
    'peak RSS, 150 steps',
    'at most 110 MB',
    `${rein(150).value.rss.toFixed(1)} MB`,
    `${times(rein(150).vsBare.rss)} the bare loop`,
    verdict(rein(150).value.rss, 110),
  ]);
  result.push([
    'peak RSS, 10 steps',
    'at most 1.30x the bare loop',
    times(rein(10).vsBare.rss),
    `${rein(10).value.rss.toFixed(1)} MB`,
    verdict(rein(10).vsBare.rss, 1.3),
  ]);
  return result;
}

/** The trajectory's output sizes, as the issue describes real runs': median, p90, p99, largest. */
function sizesNote(): string {
  const longest = Math.max(...LENGTHS);
  const sizes = outputSizes(longest).sort((a, b) => a - b);
  const at = (share: number) => sizes[Math.min(sizes.length - 1, Math.floor(sizes.length * share))]!;
  return `The ${longest}-step trajectory's command outputs: median ${at(0.5)} characters, p90 ${at(0.9)}, p99 ${at(0.99)}, largest ${sizes.at(-1)}.`;
}

/** Sentences on the extra loops of the longest length: what --fsync costs, what a smaller young generation saves. */
function extraNotes(rows: Row[]): string[] {
  const longest = Math.max(...LENGTHS);
  const at = (prefix: string) => rows.find((row) => row.steps === longest && row.loop.startsWith(prefix));
  const rein = at(REIN.name)!;
  const fsync = at(`${REIN.name}, --fsync`);
  const plain = at(`${REIN.name}, node rein.js`);
  const noSnapshots = at(`${REIN.name}, snapshots off`);
  const unbundled = at(`${REIN.name}, modules of cli/dist`);
  const bare = rows.find((row) => row.steps === longest && row.loop === BARE.name)!;
  const tunedBare = at('bare, with');
  const notes: string[] = [
    `At ${longest} steps rein's own CPU before the first request is ${rein.value.startupCpu.toFixed(0)} ms against the bare loop's ${bare.value.startupCpu.toFixed(0)} ms; ` +
      `after it, ${rein.value.cpuAfterStartup.toFixed(1)} ms a step against ${bare.value.cpuAfterStartup.toFixed(1)} ms (${times(rein.vsBare.cpuAfterStartup)}). ` +
      `Of the own CPU a step, threads other than the main one (V8's workers: optimizing compiles, concurrent marking; libuv's pool) spent ` +
      `${rein.value.otherThreads.toFixed(1)} ms in rein and ${bare.value.otherThreads.toFixed(1)} ms in the bare loop` +
      (plain ? `, and ${plain.value.otherThreads.toFixed(1)} ms in rein without the launcher's sh line (V8's four workers).` : '.'),
  ];
  if (tunedBare)
    notes.push(
      `The launcher's flags and V8 tuning are not rein's alone: started with them, the bare loop's own CPU is ${tunedBare.value.cpu.toFixed(1)} ms a step ` +
        `(${times(tunedBare.vsBare.cpu)} its own with Node's defaults), and rein's is ${times(rein.value.cpu / tunedBare.value.cpu)} that.`,
    );
  if (noSnapshots)
    notes.push(
      `The workspace snapshot of every step (what \`rein rewind\` and \`rein fork\` go back to) costs ${(rein.value.overhead - noSnapshots.value.overhead).toFixed(1)} ms of wall overhead ` +
        `and ${(rein.value.cpu - noSnapshots.value.cpu).toFixed(1)} ms of own CPU a step: with snapshots off, own CPU is ${times(noSnapshots.vsBare.cpu)} the bare loop's.`,
    );
  if (fsync)
    notes.push(
      `At ${longest} steps, --fsync (three fsyncs a step, so that a run resumes after a power cut, not only after kill -9) costs ` +
        `${(fsync.value.overhead - rein.value.overhead).toFixed(1)} ms of wall overhead a step (${times(fsync.value.overhead / rein.value.overhead)} rein's default).`,
    );
  if (unbundled)
    notes.push(
      `The CLI's bundle (cli/dist/bundle, loaded by the launcher) starts a run in ${rein.value.startup.toFixed(0)} ms with ${rein.value.startupCpu.toFixed(0)} ms of own CPU, ` +
        `against ${unbundled.value.startup.toFixed(0)} ms and ${unbundled.value.startupCpu.toFixed(0)} ms from the compiled modules of cli/dist, at a peak RSS of ` +
        `${rein.value.rss.toFixed(1)} MB against ${unbundled.value.rss.toFixed(1)} MB.`,
    );
  if (plain)
    notes.push(
      `The launcher's sh line (a young generation of 2 MB semi-spaces, one V8 worker thread, two malloc arenas) holds the ${longest}-step peak RSS at ${rein.value.rss.toFixed(1)} MB, ` +
        `against ${plain.value.rss.toFixed(1)} MB without it (node rein.js), at ${times(rein.value.cpu / plain.value.cpu)} the own CPU.`,
    );
  return notes;
}

/** `rein run` as a user runs it against the bare Node loop, the same trajectory and commands, interleaved. */
export const wholeRunSection: BenchSection = {
  id: 'whole-run',
  title: `A whole run: the rein CLI against a bare Node loop (openai client, child_process), one HTTP stub playing the same trajectory, ${LENGTHS.join(', ')} steps (median of ${ROUNDS} rounds, loops in rotation)`,
  async run() {
    const runs = await measureWholeRuns(LENGTHS, ROUNDS);
    const rows = summarize(runs);
    return {
      tables: [
        {
          headers: [
            'steps',
            'loop',
            'wall overhead ms/step',
            'vs bare',
            'own CPU ms/step',
            'vs bare',
            'start-up to first request ms',
            'vs bare',
            'peak RSS MB',
            'vs bare',
            'prompt chars, vs bare',
          ],
          rows: rows.map((row) => [
            row.steps,
            row.loop,
            row.value.overhead.toFixed(1),
            times(row.vsBare.overhead),
            row.value.cpu.toFixed(1),
            times(row.vsBare.cpu),
            row.value.startup.toFixed(0),
            times(row.vsBare.startup),
            row.value.rss.toFixed(1),
            times(row.vsBare.rss),
            times(row.vsBare.prompt),
          ]),
        },
        { headers: ['target (issue 44), rein with the sandbox on', 'limit', 'this run', 'beside', 'verdict'], rows: targetRows(rows) },
      ],
      notes: [
        sizesNote(),
        ...extraNotes(rows),
        'Wall overhead per step is the process’s wall time from spawn to exit, less the time the stub spent answering and the time the same commands take in the bare loop’s `sh -c` (spawn to exit, same round), over the steps: start-up is in it, which is why short runs cost more a step.',
        'Own CPU is the Node process’s user and system time (not its children’s: the sandbox, the shell, the commands); peak RSS is its maxRSS.',
      ],
    };
  },
};
