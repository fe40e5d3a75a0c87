import { resolve } from 'node:path';
import { UsageError } from 'rein/lib';
import {
  chartOf,
  chooseRunDir,
  hasOutsideChanges,
  loadRules,
  materialiseStep,
  openSnapshotRun,
  planRewind,
  restoreWorkspace,
  stepSnapshot,
  writeForkRunDir,
} from 'rein/run';
import { type FlagSpec, parseCommand, stringFlag } from '../args.js';
import type { Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';
import { resumeCommand } from './resume.js';
import { describePlan, stepFlag } from './rewind.js';

const FORK_USAGE = `rein fork <run-dir> --at <step> [--model M] [--base-url U] [--config F] [--out DIR] [--force] [resume's flags]

Starts a new run from the state of a run after a step: the workspace as it was
then (as \`rein rewind\` puts it back), and the chart's state of that moment, with
its record, facts, todo list, stall memory and budgets spent (the fork's budgets
start from the original's usage at that step). The new run is recorded as a
child of the original (run.json and the trace's resume line name it), so
\`rein compare <run-dir> <fork-dir>\` can set them side by side.

  --at N         the step to branch from (0: the start)
  --model M      the fork's model (default: the original's)
  --base-url U   the fork's endpoint (default: the original's)
  --config F     the fork's rules file (default: the original's rules)
  --out DIR      run the fork in DIR (new or empty), a copy of the step's
                 workspace; the original's workspace is left alone
  --force        overwrite changes made outside the run (without --out)

Other flags (--json, --viz, --headless, …) are \`rein resume\`'s.`;

const FORK_FLAGS: FlagSpec = {
  at: { type: 'string' },
  config: { type: 'string' },
  out: { type: 'string' },
  force: { type: 'boolean' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

/** The flags fork takes for itself; the rest (and --model, --base-url) go on to `rein resume`. */
const OWN_FLAGS = new Set(['--at', '--config', '--out', '--force']);

export async function forkCommand(argv: string[], io: Io, env: NodeJS.ProcessEnv): Promise<number> {
  const { own, passed } = splitArgv(argv);
  const parsed = parseCommand('rein fork', own, FORK_FLAGS);
  if (parsed.values.help || argv.includes('--help') || argv.includes('-h')) {
    io.stdout.write(`${FORK_USAGE}\n`);
    return EXIT.done;
  }
  const [dir] = parsed.positionals;
  const step = stepFlag('rein fork', parsed, 'at');
  if (!dir || step === undefined) throw new UsageError(`rein fork: expected <run-dir> and --at <step>\n\n${FORK_USAGE}`);
  const runDir = resolve(dir);
  const run = openSnapshotRun(runDir);
  const target = stepSnapshot(run, step);
  const chart = chartOf(run, target);
  if ((chart.snapshot as { status?: string }).status !== 'active')
    throw new UsageError(`rein fork: step ${step} is where the run ended; fork at an earlier step (the run kept 0 to ${step})`);
  const out = stringFlag(parsed, 'out');
  const workspace = out ? resolve(out) : run.meta.workspace;
  const configPath = stringFlag(parsed, 'config');
  const loaded = configPath ? await loadRules({ configPath, workspace }) : null;
  if (out) materialiseStep(runDir, step, workspace);
  else {
    const plan = planRewind(runDir, step);
    io.stderr.write(describePlan(plan).join('\n') + '\n');
    if (hasOutsideChanges(plan) && !parsed.values.force)
      throw new UsageError(
        `rein fork: the workspace changed since the run's last snapshot (step ${plan.outside.since.step}); nothing was changed. Rerun with --force to overwrite those changes (they are kept as a snapshot first), or --out DIR to fork into a copy`,
      );
    const report = restoreWorkspace(plan);
    if (report.failed.length > 0)
      throw new UsageError(`rein fork: ${report.failed.length} path(s) could not be restored: ${report.failed.map((entry) => entry.path).join(', ')}`);
  }
  const forkDir = chooseRunDir(workspace, undefined);
  const model = stringFlag(parsed, 'model');
  const baseURL = stringFlag(parsed, 'base-url');
  writeForkRunDir({
    run,
    target,
    chart,
    forkDir,
    changes: {
      workspace,
      ...(model ? { model } : {}),
      ...(baseURL ? { baseURL } : {}),
      ...(loaded ? { rules: loaded.rules } : {}),
      ...(loaded?.configPath ? { configPath: loaded.configPath, ...(loaded.fingerprint ? { configFingerprint: loaded.fingerprint } : {}) } : {}),
    },
  });
  io.stderr.write(`rein fork: ${forkDir} branches from ${runDir} at step ${step}\n`);
  return resumeCommand([forkDir, ...passed], io, env);
}

/** Splits the command line into the run dir and fork's own flags (with their values), and the rest for `rein resume`. */
function splitArgv(argv: string[]): { own: string[]; passed: string[] } {
  const own: string[] = [];
  const passed: string[] = [];
  for (let at = 0; at < argv.length; at++) {
    const arg = argv[at]!;
    const name = arg.split('=')[0]!;
    const takesValue = name !== '--force' && !arg.includes('=');
    if (at === 0 && !arg.startsWith('-')) own.push(arg);
    else if (OWN_FLAGS.has(name)) {
      own.push(arg);
      if (takesValue && at + 1 < argv.length) own.push(argv[++at]!);
    } else if (name === '--model' || name === '--base-url') {
      // Both: fork records them in the fork's run.json, resume builds the endpoint from them.
      own.push(arg);
      passed.push(arg);
      if (takesValue && at + 1 < argv.length) {
        own.push(argv[at + 1]!);
        passed.push(argv[++at]!);
      }
    } else passed.push(arg);
  }
  return { own, passed };
}
