import { appendFileSync, closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { readJsonLines } from './jsonl.js';

/** The run directory's list of step snapshots, one JSON line each, appended after the objects it names are stored. */
const SNAPSHOT_INDEX = 'snapshots.jsonl';

const hash = z.string().regex(/^[0-9a-f]{64}$/);

const lineSchema = z.looseObject({
  /** The step (model replies so far) whose effects the snapshot holds; 0 is the workspace as the run found it. */
  step: z.number().int().nonnegative(),
  /** `step`: taken by the run; `before-rewind`: the workspace as `rein rewind` found it, so a rewind can be undone. */
  kind: z.enum(['step', 'before-rewind']).default('step'),
  /** The object store the ids are in (outside the workspace). */
  store: z.string(),
  tree: hash,
  /** The saved state at that step (state.json's format), as an object in the store; absent for `before-rewind`. */
  chart: hash.optional(),
  /** The chart's state when it was taken (`build.compact`, `done`). */
  state: z.string().default(''),
  at: z.string(),
  /** The scan's wall time, from its first slice to its last (the run went on between slices). */
  ms: z.number().nonnegative().default(0),
  /** From the step's end to this line: the scan and any wait for an earlier one (absent in older runs). */
  doneMs: z.number().nonnegative().optional(),
  /** Bytes of new objects this snapshot stored. */
  bytes: z.number().nonnegative().default(0),
  files: z.number().int().nonnegative().default(0),
  skipped: z.array(z.string()).default([]),
});

export type StepSnapshot = z.infer<typeof lineSchema>;

/** The snapshots recorded in a run directory, in the order they were taken; a line cut by a kill, or malformed, is left out. */
export function readSnapshotIndex(runDir: string): StepSnapshot[] {
  const out: StepSnapshot[] = [];
  for (const value of readJsonLines(join(runDir, SNAPSHOT_INDEX)).values) {
    const parsed = lineSchema.safeParse(value);
    if (parsed.success) out.push(parsed.data);
  }
  return out;
}

/** Appends one line; a cut last line left by a killed process is ended first, so this one parses. */
export function appendSnapshotIndex(runDir: string, line: z.input<typeof lineSchema>): void {
  const path = join(runDir, SNAPSHOT_INDEX);
  const prefix = existsSync(path) && !endsWithNewline(path) ? '\n' : '';
  appendFileSync(path, `${prefix}${JSON.stringify(line)}\n`);
}

function endsWithNewline(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}

/** The latest snapshot of `step` taken by the run (a resumed or rewound run may have taken it again). */
export function findStepSnapshot(index: readonly StepSnapshot[], step: number): StepSnapshot | undefined {
  for (let at = index.length - 1; at >= 0; at--) if (index[at]!.kind === 'step' && index[at]!.step === step) return index[at];
  return undefined;
}
