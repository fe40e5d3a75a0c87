import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { built, inCheckout, reinBin } from '../checkout.js';
import { measureProcess, type ProcessFigures, USAGE_REPORTER } from './measure-run.js';
import { TEST_COMMAND, trajectory, writeWorkspace } from './trajectory.js';
import { startTrajectoryStub } from './trajectory-stub.js';

/** A loop the section runs: the bare Node loop, or `rein run` with the sandbox on or off, and with what else. */
interface Loop {
  name: string;
  sandbox?: 'auto' | 'none';
  /** Started as `node rein.js` rather than through the launcher's sh line: V8's default young generation. */
  plainNode?: boolean;
  /** The CLI's compiled modules (cli/dist/main.js) instead of its bundle, with the launcher's flag: what the bundle saves. */
  unbundled?: boolean;
  /** The bare loop started with the launcher's flags and V8 tuning: what they would give any Node loop. */
  tunedBare?: boolean;
  /** Flags for `rein run`. */
  reinArgs?: string[];
  /** Rules besides the sandbox's, in the run's rules file. */
  rules?: Record<string, unknown>;
}

/** The launcher's flags and environment (cli/bin/rein.js's sh line), for the row that starts the CLI's modules without it. */
const LAUNCHER_FLAGS = ['--v8-pool-size=1', '--max-semi-space-size=2'];
/** What the launcher's JavaScript does before it loads the CLI: V8's tuning (cli/bin/v8-tuning.js). */
const LAUNCHER_PRELUDE = `import v8 from 'node:v8';\nimport { tuningToApply } from ${JSON.stringify(pathToFileURL(inCheckout('cli', 'bin', 'v8-tuning.js')).href)};\nfor (const flag of tuningToApply(process.execArgv, process.env.NODE_OPTIONS)) v8.setFlagsFromString(flag);\n`;
const LAUNCHER_ENV = { MALLOC_ARENA_MAX: '2' };

export const BARE: Loop = { name: 'bare' };
export const REIN: Loop = { name: 'rein, sandbox on', sandbox: 'auto' };
const MAIN_LOOPS: readonly Loop[] = [BARE, REIN, { name: 'rein, sandbox off', sandbox: 'none' }];
/**
 * At the longest length only: what a guarantee costs (--fsync), what the per-step workspace snapshots cost (the
 * rewind a user sees), and what the launcher's young-generation size holds of the peak RSS.
 */
const EXTRA_LOOPS: readonly Loop[] = [
  { name: "bare, with rein's launcher flags and V8 tuning", tunedBare: true },
  { name: 'rein, sandbox on, --fsync (power-loss durability)', sandbox: 'auto', reinArgs: ['--fsync'] },
  { name: "rein, sandbox on, node rein.js (without the launcher's sh line)", sandbox: 'auto', plainNode: true },
  { name: 'rein, sandbox on, snapshots off (no rewind or fork)', sandbox: 'auto', rules: { snapshots: { enabled: false } } },
  { name: 'rein, sandbox on, modules of cli/dist (no bundle)', sandbox: 'auto', unbundled: true },
];
/** The loops run at a length, the bare one first. */
export const loopsAt = (steps: number, lengths: readonly number[]): readonly Loop[] =>
  steps === Math.max(...lengths) ? [...MAIN_LOOPS, ...EXTRA_LOOPS] : MAIN_LOOPS;

/** One loop's run of one length, with the time its commands take on the platform (the bare loop's, same round). */
export interface RoundFigures extends ProcessFigures {
  loop: string;
  steps: number;
  commandsMs: number;
}

/**
 * How a loop is started: rein as a user starts it, by the launcher itself (its sh line starts node); the bare loop and
 * the `node rein.js` and unbundled rows by node.
 */
async function launchOf(loop: Loop, args: { bareArgs: string[]; reinArgs: string[]; unbundledCli: string }): Promise<{ command?: string; args: string[] }> {
  if (loop === BARE) return { args: args.bareArgs };
  if (loop.tunedBare) return { args: [...LAUNCHER_FLAGS, ...(await v8Tuning()), ...args.bareArgs] };
  if (loop.plainNode) return { args: [reinBin(), ...args.reinArgs] };
  if (loop.unbundled) return { args: [...LAUNCHER_FLAGS, args.unbundledCli, ...args.reinArgs] };
  return { command: reinBin(), args: args.reinArgs };
}

/** The launcher's V8 tuning flags (cli/bin/v8-tuning.js), as command-line flags. */
const v8Tuning = async (): Promise<string[]> =>
  ((await import(pathToFileURL(inCheckout('cli', 'bin', 'v8-tuning.js')).href)) as { V8_TUNING: string[] }).V8_TUNING;

const TASK = 'Make the constants in calc.py right; python3 test_calc.py checks them.';

/**
 * Every length, `rounds` times, each round the three loops in turn on a fresh copy of the same workspace
 * against the same stub, so a slow moment of the machine falls on every loop alike.
 */
export async function measureWholeRuns(lengths: readonly number[], rounds: number): Promise<RoundFigures[]> {
  const dir = mkdtempSync(join(tmpdir(), 'rein-bench-whole-run-'));
  const stub = await startTrajectoryStub();
  try {
    const reporter = join(dir, 'report-usage.mjs');
    writeFileSync(reporter, USAGE_REPORTER);
    const unbundledCli = join(dir, 'unbundled-cli.mjs');
    writeFileSync(
      unbundledCli,
      `${LAUNCHER_PRELUDE}const { main } = await import(${JSON.stringify(pathToFileURL(built('cli/main.js')).href)});\nprocess.exitCode = await main(process.argv.slice(2));\n`,
    );
    const rulesFile = (loop: Loop, index: number) => {
      const path = join(dir, `rules-${index}.json`);
      writeFileSync(path, JSON.stringify({ permissions: { sandbox: loop.sandbox ?? 'auto' }, ...loop.rules }));
      return path;
    };
    const figures: RoundFigures[] = [];
    for (const steps of lengths) {
      const template = join(dir, `template-${steps}`);
      writeWorkspace(template, steps);
      const played = trajectory(steps);
      for (let round = 0; round < rounds; round++) {
        let commandsMs = Number.NaN;
        for (const [index, loop] of loopsAt(steps, lengths).entries()) {
          const workspace = join(dir, `ws-${steps}-${round}`);
          cpSync(template, workspace, { recursive: true });
          const timesFile = join(dir, 'command-times.json');
          const reinArgs = [
            'run',
            workspace,
            TASK,
            '--test-cmd',
            TEST_COMMAND,
            '--model',
            'stub-model',
            '--base-url',
            stub.url,
            '--config',
            rulesFile(loop, index),
            '--context-window',
            '200000',
            '--max-steps',
            String(steps + 20),
            ...(loop.reinArgs ?? []),
          ];
          const bareArgs = [built('dev/bench/whole-run/bare-loop.js'), workspace, timesFile];
          const launch = await launchOf(loop, { bareArgs, reinArgs, unbundledCli });
          const log = stub.play(played);
          // A state dir of the section's own: what earlier runs left in the user's would make the rows depend on history.
          const env = {
            ...process.env,
            NODE_OPTIONS: undefined,
            MALLOC_ARENA_MAX: undefined,
            ...(loop.unbundled || loop.tunedBare ? LAUNCHER_ENV : {}),
            XDG_STATE_HOME: join(dir, 'state'),
            OPENAI_API_KEY: 'bench',
            OPENAI_BASE_URL: stub.url,
            NO_COLOR: '1',
            CI: '1',
          };
          const run = await measureProcess({ ...launch, env, cwd: workspace, reporter, usageFile: join(dir, 'usage.json'), stub: log });
          if (loop === BARE) commandsMs = (JSON.parse(readFileSync(timesFile, 'utf8')) as number[]).reduce((a, b) => a + b, 0);
          if (run.exitCode !== 0 || run.stub.requests !== steps)
            throw new Error(`${loop.name}, ${steps} steps: exit ${run.exitCode} after ${run.stub.requests} requests (the trajectory has ${steps})`);
          figures.push({ ...run, loop: loop.name, steps, commandsMs });
          rmSync(workspace, { recursive: true, force: true });
        }
      }
    }
    return figures;
  } finally {
    await stub.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
