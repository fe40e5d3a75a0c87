import { resolve } from 'node:path';
import { UsageError } from 'rein/lib';
import { applyRewind, describeDiff, hasOutsideChanges, materialiseStep, planRewind, type RewindPlan } from 'rein/run';
import { type FlagSpec, type ParsedCommand, parseCommand, stringFlag } from '../args.js';
import type { Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';

const REWIND_USAGE = `rein rewind <run-dir> --to <step> [--force] [--dry-run] [--out DIR]

Puts the run's workspace back, byte for byte, as it was after a step (files,
modes, symlinks as links, deleted files back, new files gone; whatever the
agent's shell commands did), and makes the step's chart state the run's saved
state, so \`rein resume\` goes on from there. Step 0 is the workspace as the run
found it. It shows the changes first; it refuses when the workspace holds
changes the run's snapshots do not (your own edits, or a step cut short by a
kill) unless --force, and even then keeps them as a snapshot first.

  --to N       the step to go back (or forward) to
  --force      overwrite changes made outside the run
  --dry-run    show what would change, change nothing
  --out DIR    write the step's workspace into DIR (new or empty) instead;
               the run and its workspace are left alone`;

const REWIND_FLAGS: FlagSpec = {
  to: { type: 'string' },
  force: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  out: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

export async function rewindCommand(argv: string[], io: Io): Promise<number> {
  const parsed = parseCommand('rein rewind', argv, REWIND_FLAGS);
  if (parsed.values.help) {
    io.stdout.write(`${REWIND_USAGE}\n`);
    return EXIT.done;
  }
  const [dir] = parsed.positionals;
  const step = stepFlag('rein rewind', parsed, 'to');
  if (!dir || step === undefined) throw new UsageError(`rein rewind: expected <run-dir> and --to <step>\n\n${REWIND_USAGE}`);
  const runDir = resolve(dir);
  const out = stringFlag(parsed, 'out');
  if (out) {
    const { report, target } = materialiseStep(runDir, step, resolve(out));
    io.stdout.write(`rein rewind: step ${target.step}'s workspace written to ${resolve(out)} (${report.written} entries)\n`);
    return reportFailures(io, report.failed);
  }
  const plan = planRewind(runDir, step);
  io.stdout.write(describePlan(plan).join('\n') + '\n');
  if (hasOutsideChanges(plan) && !parsed.values.force)
    throw new UsageError(
      `rein rewind: the workspace changed since the run's last snapshot (step ${plan.outside.since.step}), by you or by a step cut short; nothing was changed. Rerun with --force to overwrite those changes (they are kept as a snapshot first), or use --out DIR`,
    );
  if (parsed.values['dry-run']) return EXIT.done;
  const report = applyRewind(plan);
  io.stdout.write(
    `rein rewind: the workspace and the saved state are step ${step}'s (${report.written} written, ${report.removed} removed).\n` +
      `Continue with: rein resume ${runDir}   or branch: rein fork ${runDir} --at ${step} --model M\n`,
  );
  return reportFailures(io, report.failed);
}

/** What the plan will do, what changed outside the run, what it cannot undo. */
export function describePlan(plan: RewindPlan): string[] {
  const { target } = plan;
  const lines = [`rein rewind: ${plan.workspace} to step ${target.step} (taken ${target.at}, state ${target.state})`];
  lines.push(`Changes (now → step ${target.step}): ${describeDiff(plan.changes).join('\n')}`);
  if (hasOutsideChanges(plan))
    lines.push(`Changed since the run's last snapshot (step ${plan.outside.since.step}), not by a finished step: ${describeDiff(plan.outside).join('\n')}`);
  if (plan.notRestorable.length > 0) lines.push('Not undone by a rewind:', ...plan.notRestorable.map((line) => `  - ${line}`));
  return lines;
}

function reportFailures(io: Io, failed: { path: string; reason: string }[]): number {
  if (failed.length === 0) return EXIT.done;
  io.stderr.write(`rein rewind: ${failed.length} path(s) could not be restored:\n${failed.map((entry) => `  ${entry.path}: ${entry.reason}`).join('\n')}\n`);
  return EXIT.unfinished;
}

/** A step number flag: a whole number, 0 (the workspace as the run found it) included. */
export function stepFlag(command: string, parsed: ParsedCommand, name: string): number | undefined {
  const value = stringFlag(parsed, name);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`${command}: --${name} expects a step number (0 or more), got "${value}"`);
  return Number(value);
}
