import { resolve } from 'node:path';
import { UsageError } from 'rein/lib';
import { collectSnapshotGarbage, defaultSnapshotStore, GC_GRACE_MS } from 'rein/run';
import { type FlagSpec, parseCommand, stringFlag } from '../args.js';
import type { Io } from '../execute-run.js';
import { EXIT } from '../exit-codes.js';

/** Days a run's snapshots are kept after its newest one, unless `--keep-days` says otherwise. */
const DEFAULT_KEEP_DAYS = 30;

const SNAPSHOTS_USAGE = `rein snapshots gc [--keep-days N] [--dry-run] [--store DIR]

Frees the space of workspace snapshots no kept run needs. The snapshot store
(in your state dir) is shared by every run of yours; each run that takes
snapshots is listed in it. A run is kept while its run directory is there and
its newest snapshot is less than ${DEFAULT_KEEP_DAYS} days old (or it is running); the
objects no kept run names are removed. Safe while runs go on: an object
written or reused in the last ${GC_GRACE_MS / 60_000} minutes is never removed.

  --keep-days N   keep runs whose newest snapshot is younger than N days (default ${DEFAULT_KEEP_DAYS})
  --dry-run       say what would be removed, remove nothing
  --store DIR     another store than the state dir's (a run's snapshotStore)`;

const SNAPSHOTS_FLAGS: FlagSpec = {
  'keep-days': { type: 'string' },
  'dry-run': { type: 'boolean' },
  store: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

export async function snapshotsCommand(argv: string[], io: Io, env: NodeJS.ProcessEnv): Promise<number> {
  const parsed = parseCommand('rein snapshots', argv, SNAPSHOTS_FLAGS);
  if (parsed.values.help) {
    io.stdout.write(`${SNAPSHOTS_USAGE}\n`);
    return EXIT.done;
  }
  const [action, ...extra] = parsed.positionals;
  if (action !== 'gc' || extra.length > 0) throw new UsageError(`rein snapshots: expected gc\n\n${SNAPSHOTS_USAGE}`);
  const days = stringFlag(parsed, 'keep-days');
  const keepDays = days === undefined ? DEFAULT_KEEP_DAYS : Number(days);
  if (!Number.isFinite(keepDays) || keepDays < 0) throw new UsageError(`rein snapshots gc: --keep-days takes a number of days (0 or more), not "${days}"`);
  const store = resolve(stringFlag(parsed, 'store') ?? defaultSnapshotStore(env));
  const dryRun = parsed.values['dry-run'] === true;
  const report = collectSnapshotGarbage({ store, keepDays, dryRun });
  const verb = dryRun ? 'would remove' : 'removed';
  for (const run of report.dropped)
    io.stdout.write(
      `rein snapshots gc: ${dryRun ? 'would drop' : 'dropped'} ${run.runDir} (${run.why === 'gone' ? 'its run directory is gone' : `no snapshot in ${keepDays} days`})\n`,
    );
  io.stdout.write(
    `rein snapshots gc: ${store}: ${report.kept.length} run(s) kept, ${report.dropped.length} dropped; ${verb} ${report.removed} of ${report.objects} objects (${(report.bytesFreed / 1e6).toFixed(1)} MB)` +
      `${report.young > 0 ? `; ${report.young} unnamed but recent object(s) left for runs under way` : ''}\n`,
  );
  if (report.broken > 0) io.stderr.write(`rein snapshots gc: ${report.broken} tree object(s) of kept runs were missing or damaged\n`);
  return EXIT.done;
}
