import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { UsageError } from '../../lib/errors.js';
import { WORKSPACE_REIN_DIR } from '../../lib/state/harness-files.js';
import { formatZodError } from '../../lib/zod-error.js';
import { isRecordedRunMeta, recordRunMeta } from '../../rules/trust/index.js';

/**
 * A run directory: what a run writes and `rein resume`, `rein viz` and
 * `rein eval` read back. The file names and the `run.json` format live here
 * and nowhere else.
 */
export const RUN_FILES = {
  /** What the run was started with (`RunMeta`). */
  meta: 'run.json',
  /** The JSONL trace (unless `--trace` put it elsewhere; `run.json` then says where). */
  trace: 'trace.jsonl',
  /** The full record of messages, one per line. */
  record: 'record.jsonl',
  /** Executed tool calls, journaled before the next runs, so resume never runs one twice. */
  journal: 'calls.jsonl',
  /** The machine's state after the last step (written atomically). */
  state: 'state.json',
  /** The call waiting for an approval, for `rein approve` and the visualizer (the saved state holds it too). */
  approvalRequest: 'approval-request.json',
  /** An answer `rein approve` wrote for the waiting call, bound to its id and argument hash. */
  approvalAnswer: 'approval-answer.json',
} as const;

type RunFile = keyof typeof RUN_FILES;

/** A file's path in a run directory. */
export function runFile(runDir: string, file: RunFile): string {
  return join(runDir, RUN_FILES[file]);
}

const runMetaSchema = z.looseObject({
  version: z.literal(1),
  workspace: z.string(),
  task: z.string(),
  testCmd: z.string(),
  model: z.string(),
  createdAt: z.string(),
  rules: z.unknown(),
  /** The endpoint, never with credentials in it. */
  baseURL: z.string().optional(),
  /** The rules file the run was started with: a resumed run reloads its guards, actions and tools. */
  configPath: z.string().optional(),
  /** That file's fingerprint at the start (its hash and its imported workspace modules'), checked again by `rein resume`. */
  configFingerprint: z.object({ hash: z.string(), modules: z.record(z.string(), z.string()) }).optional(),
  /** A trace kept outside the run directory (`--trace`): where a resumed run goes on writing. */
  tracePath: z.string().optional(),
});

export type RunMeta = z.infer<typeof runMetaSchema>;

/** Writes `run.json`. An endpoint URL with a user, a password or a query is left out: resume asks for it again. */
export function writeRunMeta(runDir: string, meta: Omit<RunMeta, 'version' | 'createdAt'>): void {
  const { baseURL, ...rest } = meta;
  const safe = typeof baseURL === 'string' && !/^[a-z]+:\/\/[^/]*@|[?#]/i.test(baseURL) ? { baseURL } : {};
  const text = `${JSON.stringify({ version: 1, createdAt: new Date().toISOString(), ...rest, ...safe }, null, 2)}\n`;
  writeFileSync(runFile(runDir, 'meta'), text);
  recordRunMeta(runDir, text);
}

/**
 * `run.json` for acting on it (`rein resume`, a replay that imports the run's rules module): only the one rein wrote
 * there, as it wrote it (rules/trust/run-records.ts); a usage error otherwise.
 */
export function readOwnRunMeta(runDir: string): RunMeta {
  const meta = readRunMeta(runDir);
  if (!isRecordedRunMeta(runDir, readFileSync(runFile(runDir, 'meta'), 'utf8')))
    throw new UsageError(
      `${runFile(runDir, 'meta')} was not written by rein for this user on this machine, or was changed since: rein does not act on it (it names the rules and the rules module a resumed run loads)`,
    );
  return meta;
}

/** Reads and checks `run.json`; a missing or malformed one is a usage error naming the directory. */
export function readRunMeta(runDir: string): RunMeta {
  const path = runFile(runDir, 'meta');
  if (!existsSync(path)) throw new UsageError(`${runDir} is not a rein run directory (no ${RUN_FILES.meta})`);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`${path}: not valid JSON: ${(error as Error).message}`);
  }
  const parsed = runMetaSchema.safeParse(value);
  if (!parsed.success)
    throw new UsageError(
      formatZodError(parsed.error, { input: value })
        .map((line) => `${path}: ${line}`)
        .join('\n'),
    );
  return parsed.data;
}

/** Where a run's trace is: beside `run.json`, or where `run.json` says. */
export function traceFileOf(runDir: string, meta: Pick<RunMeta, 'tracePath'>): string {
  return meta.tracePath ?? runFile(runDir, 'trace');
}

/** A fresh run directory name: sortable time plus a short random suffix. */
export function newRunId(now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${Math.random().toString(36).slice(2, 6)}`;
}

/** Where a run's files go: `--run-dir`, else `<workspace>/.rein/runs/<id>`. */
export function chooseRunDir(workspace: string, explicit: string | undefined): string {
  return explicit ? resolve(explicit) : join(resolve(workspace), WORKSPACE_REIN_DIR, 'runs', newRunId());
}
