import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

/** The file names a replay may read: JSON, JSON Lines and SWE-agent's `.traj`, each optionally gzipped. */
const EXTENSIONS = /\.(?:jsonl|json|traj)(?:\.gz)?$/;
/** What marks a folder as one rein run (run/record/run-dir.ts): its run.json, or a trace beside its record or saved state. */
const RUN_MARKERS = ['run.json', 'record.jsonl', 'state.json'];
/** Folders never worth walking into. */
const SKIP_DIRS = new Set(['node_modules', '.git']);

/** The files to read for one input, and the files of a rein run folder that were passed over because the trace holds the run. */
interface InputFiles {
  files: string[];
  /** Whether the input was a directory: there, files of no known shape are passed over quietly (counted), not reported as skipped. */
  walked: boolean;
}

/**
 * The files a replay reads from one input: the file itself, or a directory's
 * files recursively, in sorted order. A rein run folder (`<repo>/.rein/runs/<id>/`,
 * an eval's `runs/…/`) is one run: only its trace is read (where its run.json
 * says, for a trace kept elsewhere), never its record, its saved state or the
 * ATIF trajectory written beside it, which hold the same run again.
 *
 * @example inputFiles('.rein/runs') // { files: ['.rein/runs/20260101T…-ab12/trace.jsonl', …], walked: true }
 */
export function inputFiles(input: string): InputFiles {
  if (!statSync(input).isDirectory()) return { files: [input], walked: false };
  const files: string[] = [];
  walk(input, files);
  return { files, walked: true };
}

function walk(dir: string, files: string[]): void {
  const trace = runTrace(dir);
  if (trace) {
    files.push(trace);
    return;
  }
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) walk(path, files);
    } else if (entry.isFile() && EXTENSIONS.test(entry.name)) {
      files.push(path);
    }
  }
}

/** The trace of a rein run folder, or null when the folder is not one. */
function runTrace(dir: string): string | null {
  if (!RUN_MARKERS.some((name) => existsSync(join(dir, name)))) return null;
  const beside = join(dir, 'trace.jsonl');
  const kept = tracePathOf(dir);
  if (kept && existsSync(kept)) return kept;
  return existsSync(beside) ? beside : null;
}

/** A trace kept elsewhere (`--trace`), as the run's run.json names it. */
function tracePathOf(dir: string): string | null {
  try {
    const meta = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { tracePath?: unknown };
    return typeof meta.tracePath === 'string' ? (isAbsolute(meta.tracePath) ? meta.tracePath : resolve(dir, meta.tracePath)) : null;
  } catch {
    return null;
  }
}
