import fs from 'node:fs';
import path from 'node:path';
import { headTail, keepPerSide } from '../lib/head-tail.js';
import type { JobState } from '../lib/tool-effect.js';

/** A job's log is cut back to empty (with a note) past this size, so a chatty dev server cannot fill the disk. */
export const MAX_LOG_BYTES = 64 * 1024 * 1024;

export type { JobState };

/** A background job as the tools and the trace see it. */
export interface JobView {
  id: string;
  command: string;
  log: string;
  state: JobState;
  /** Exit code, or 128 + signal number; null while running or when lost. */
  exitCode: number | null;
  /** Its process group (a pid in the sandbox's namespace); null before it started. */
  pgid: number | null;
  startedAt: number;
  endedAt: number | null;
  /** Why it ended when rein ended it: `stopped by the agent`, `the run ended`, `rein was stopped`. */
  cause: string | null;
}

type Line = {
  id: string;
  command?: string;
  log?: string;
  startedAt?: number;
  state?: JobState;
  exitCode?: number | null;
  endedAt?: number;
  cause?: string;
  reported?: boolean;
};

/**
 * The run's background jobs: their state in memory, a line per change in
 * `jobs.jsonl` (so a resumed run knows which died with its predecessor) and
 * their logs in `jobs/<id>.log`, read incrementally.
 *
 * @example const store = openJobStore(runDir); const job = store.create('npm run dev');
 */
export function openJobStore(dir: string) {
  const file = path.join(dir, 'jobs.jsonl');
  const logs = jobLogDir(dir);
  fs.mkdirSync(logs, { recursive: true });
  const jobs = new Map<string, JobView>();
  const offsets = new Map<string, number>();
  const earlier = new Map<string, Line>();
  for (const line of readLines(file)) earlier.set(line.id, { ...earlier.get(line.id), ...line });
  let next = Math.max(0, ...[...earlier.keys()].map(Number).filter(Number.isFinite)) + 1;
  const append = (line: Line) => fs.appendFileSync(file, `${JSON.stringify(line)}\n`);

  return {
    logDir: logs,
    /** Jobs of an earlier process of this run that were running when it ended; reported once. */
    takeLost(): JobView[] {
      const lost = [...earlier.values()].filter(
        (line) =>
          line.command &&
          !line.reported &&
          (line.state === undefined || line.state === 'running' || (line.state === 'stopped' && line.cause !== 'stopped by the agent')),
      );
      for (const line of lost) append({ id: line.id, reported: true });
      for (const line of lost) line.reported = true;
      return lost.map((line) => ({
        id: line.id,
        command: line.command!,
        log: line.log ?? '',
        state: 'lost',
        exitCode: null,
        pgid: null,
        startedAt: line.startedAt ?? 0,
        endedAt: line.endedAt ?? null,
        cause: line.cause ?? 'rein was stopped',
      }));
    },
    create(command: string): JobView {
      const id = String(next++);
      const job: JobView = {
        id,
        command,
        log: path.join(logs, `${id}.log`),
        state: 'running',
        exitCode: null,
        pgid: null,
        startedAt: Date.now(),
        endedAt: null,
        cause: null,
      };
      fs.writeFileSync(job.log, '');
      jobs.set(id, job);
      offsets.set(id, 0);
      append({ id, command, log: job.log, startedAt: job.startedAt, state: 'running' });
      return job;
    },
    started(id: string, pgid: number) {
      const job = jobs.get(id);
      if (job) job.pgid = pgid;
    },
    end(id: string, state: Exclude<JobState, 'running'>, exitCode: number | null, cause: string | null): JobView | undefined {
      const job = jobs.get(id);
      if (job?.state !== 'running') return undefined;
      Object.assign(job, { state, exitCode, cause, endedAt: Date.now() });
      append({ id, state, exitCode, endedAt: job.endedAt!, ...(cause ? { cause } : {}) });
      return job;
    },
    get: (id: string) => jobs.get(id),
    list: () => [...jobs.values()],
    running: () => [...jobs.values()].filter((job) => job.state === 'running'),
    /** Output since the last read, head and tail within `cap` characters; `newBytes` is how much was new. */
    readNew(id: string, cap: number): { text: string; newBytes: number; size: number } {
      const job = jobs.get(id)!;
      capLog(job.log, offsets, id);
      const size = fileSize(job.log);
      const from = Math.min(offsets.get(id) ?? 0, size);
      offsets.set(id, size);
      return { text: readRange(job.log, from, size, cap), newBytes: size - from, size };
    },
    /** Cuts every running job's log that has grown past MAX_LOG_BYTES. */
    capLogs() {
      for (const job of jobs.values()) if (job.state === 'running') capLog(job.log, offsets, job.id);
    },
  };
}

export type JobStore = ReturnType<typeof openJobStore>;

/** Where a run's job logs go: `<run dir>/jobs/`. */
export function jobLogDir(dir: string): string {
  return path.join(dir, 'jobs');
}

function capLog(log: string, offsets: Map<string, number>, id: string): void {
  if (fileSize(log) <= MAX_LOG_BYTES) return;
  // The job appends (O_APPEND), so after the cut it writes on at the new end.
  fs.truncateSync(log, 0);
  fs.appendFileSync(log, `[rein: this log passed ${MAX_LOG_BYTES / (1024 * 1024)} MiB and was cut; older output is gone]\n`);
  offsets.set(id, 0);
}

/** Bytes [from, to) of a file as text, head and tail within `cap` characters, holding O(cap) in memory. */
function readRange(file: string, from: number, to: number, cap: number): string {
  const length = to - from;
  if (length <= 0) return '';
  const fd = fs.openSync(file, 'r');
  try {
    const read = (start: number, bytes: number) => {
      const buffer = Buffer.alloc(bytes);
      return buffer.subarray(0, fs.readSync(fd, buffer, 0, bytes, start)).toString('utf8');
    };
    // Four bytes a character at most: reading 4 × cap covers whatever headTail keeps.
    if (length <= 4 * cap) return headTail(read(from, length), cap);
    const keep = keepPerSide(cap);
    const head = read(from, 4 * keep).slice(0, keep);
    const tail = read(to - 4 * keep, 4 * keep).slice(-keep);
    return `${head}\n...[${length - Buffer.byteLength(head) - Buffer.byteLength(tail)} bytes omitted]...\n${tail}`;
  } finally {
    fs.closeSync(fd);
  }
}

/** The lines that parse; a line cut by a kill is ended, so the next one starts clean. */
function readLines(file: string): Line[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  if (text !== '' && !text.endsWith('\n')) fs.appendFileSync(file, '\n');
  return text.split('\n').flatMap((raw) => {
    try {
      const line = JSON.parse(raw) as Line;
      return typeof line?.id === 'string' ? [line] : [];
    } catch {
      return [];
    }
  });
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}
