import fs from 'node:fs';
import path from 'node:path';
import { headTail, keepPerSide } from '../../../lib/head-tail.js';
import { maskLinesAfter } from '../../../lib/secrets/secret-scan.js';
import type { JobState } from '../../../lib/tool-effect.js';
import { openHeldDir } from './held-dir.js';

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

const { O_RDWR, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_APPEND } = fs.constants;
/** How much of a log before the unread part is looked at, so a secret that began there is still masked. */
const MASK_CONTEXT_BYTES = 64 * 1024;

/**
 * The run's background jobs: their state in memory, a line per change in
 * `jobs.jsonl` (so a resumed run knows which died with its predecessor) and
 * their logs in `jobs/<id>.log`, read incrementally.
 *
 * The logs' folder is writable from the sandbox (the job appends to its log), so the harness never opens a log
 * by name after creating it: it creates each one itself (no-follow, exclusive, in the folder it holds open) and
 * keeps the descriptor; reads, size checks and cuts use that descriptor. A log the sandbox replaces by a link, a
 * FIFO or a hard link is no longer the one rein reads or cuts, and nothing outside is touched.
 *
 * @example const store = openJobStore(runDir); const job = store.create('npm run dev');
 */
export function openJobStore(dir: string, options: { maxLogBytes?: number } = {}) {
  const maxLogBytes = options.maxLogBytes ?? MAX_LOG_BYTES;
  const file = path.join(dir, 'jobs.jsonl');
  const logs = jobLogDir(dir);
  fs.mkdirSync(logs, { recursive: true, mode: 0o700 });
  const logDir = openHeldDir(logs);
  const jobs = new Map<string, JobView>();
  const offsets = new Map<string, number>();
  const fds = new Map<string, number>();
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
      fds.set(id, createLog(logDir.at(`${id}.log`)));
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
      const fd = fds.get(id)!;
      capLog(fd, maxLogBytes, offsets, id);
      const size = fs.fstatSync(fd).size;
      // Smaller than what was read: the log was cut (by the writer in the sandbox), and all of it is new.
      const offset = offsets.get(id) ?? 0;
      const from = offset > size ? 0 : offset;
      offsets.set(id, size);
      return { text: readRange(fd, from, size, cap), newBytes: size - from, size };
    },
    /** Cuts every running job's log that has grown past the cap (MAX_LOG_BYTES). */
    capLogs() {
      for (const job of jobs.values()) if (job.state === 'running') capLog(fds.get(job.id)!, maxLogBytes, offsets, job.id);
    },
    /** Lets go of the logs (their files stay). */
    close() {
      for (const fd of fds.values()) fs.closeSync(fd);
      fds.clear();
      logDir.close();
    },
  };
}

/**
 * A new empty log at `at`, as a descriptor: a name the sandbox planted there first (a link, a FIFO, a hard link to
 * another file) is removed, never followed, and what is opened is checked to be the regular file just made.
 */
function createLog(at: string): number {
  fs.rmSync(at, { force: true });
  const fd = fs.openSync(at, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK, 0o600);
  const stat = fs.fstatSync(fd);
  if (!stat.isFile() || stat.nlink !== 1 || stat.size !== 0) {
    fs.closeSync(fd);
    throw new Error('the job log could not be created as a new file');
  }
  return fd;
}

export type JobStore = ReturnType<typeof openJobStore>;

/** Where a run's job logs go: `<run dir>/jobs/`. */
export function jobLogDir(dir: string): string {
  return path.join(dir, 'jobs');
}

function capLog(fd: number, maxLogBytes: number, offsets: Map<string, number>, id: string): void {
  if (fs.fstatSync(fd).size <= maxLogBytes) return;
  // The job appends (O_APPEND), so after the cut it writes on at the new end.
  fs.ftruncateSync(fd, 0);
  fs.writeSync(fd, `${logCutNote(maxLogBytes)}\n`);
  offsets.set(id, 0);
}

/** The line a cut log starts with. */
export function logCutNote(maxLogBytes: number): string {
  return `[rein: this log passed ${formatMiB(maxLogBytes)} MiB and was cut; older output is gone]`;
}

function formatMiB(bytes: number): string {
  return String(Math.round((bytes / (1024 * 1024)) * 100) / 100);
}

/**
 * Bytes [from, to) of a log as text, head and tail within `cap` characters, holding O(cap) in memory. Each part is
 * masked line by line together with what comes before it, so a private key whose header was in output already read
 * is masked in the part read now.
 */
function readRange(fd: number, from: number, to: number, cap: number): string {
  const length = to - from;
  if (length <= 0) return '';
  const read = (start: number, bytes: number) => {
    const buffer = Buffer.alloc(Math.max(0, bytes));
    return buffer.subarray(0, fs.readSync(fd, buffer, 0, buffer.length, start)).toString('utf8');
  };
  const masked = (start: number, text: string) => {
    const before = Math.max(0, start - MASK_CONTEXT_BYTES);
    return maskLinesAfter(read(before, start - before), text);
  };
  // Four bytes a character at most: reading 4 × cap covers whatever headTail keeps.
  if (length <= 4 * cap) return headTail(masked(from, read(from, length)), cap);
  const keep = keepPerSide(cap);
  const head = masked(from, read(from, 4 * keep)).slice(0, keep);
  const tailStart = to - 4 * keep;
  const tail = masked(tailStart, read(tailStart, 4 * keep)).slice(-keep);
  return `${head}\n...[${Math.max(0, length - Buffer.byteLength(head) - Buffer.byteLength(tail))} bytes omitted]...\n${tail}`;
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
