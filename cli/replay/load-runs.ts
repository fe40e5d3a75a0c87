import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipBounded } from 'rein/lib';
import type { RecordedRun } from 'rein/testing';
import { type ActionMap, DEFAULT_ACTION_MAP } from './action-map.js';
import { atifRun, isAtif } from './formats/atif.js';
import { FormatError } from './formats/errors.js';
import { isMiniSweAgent, miniSweAgentRun } from './formats/mini-swe-agent.js';
import { chatRun, isChatMessage, isChatRun } from './formats/openai-chat.js';
import { compactRun, isCompactRun } from './formats/realtraj.js';
import { isTraceLine, reinTraceRun } from './formats/rein-trace.js';
import { isSweAgent, sweAgentRun } from './formats/swe-agent.js';

/** A file or line that could not be read: where, and why. The rest of the set is still replayed. */
export interface SkippedInput {
  file: string;
  line?: number;
  why: string;
}

export interface LoadedRuns {
  runs: RecordedRun[];
  skipped: SkippedInput[];
  /** The format each file was read as. */
  formats: Record<string, number>;
}

const EXTENSIONS = /\.(?:jsonl|json|traj)(?:\.gz)?$/;

/**
 * Reads recorded runs from a file or a directory (recursively: `.jsonl`,
 * `.json`, `.traj`, each optionally `.gz`), telling each file's format by its
 * shape: the realtraj compact JSONL, rein's trace.jsonl, mini-swe-agent's
 * `.traj.json`, SWE-agent's `.traj`, ATIF, or OpenAI chat messages (JSONL of
 * runs or of one run's messages). A malformed file or line is skipped with
 * its file and line; it never stops the rest.
 *
 * @example const { runs, skipped } = loadRuns('../shared/realtraj/dev.jsonl.gz');
 */
export function loadRuns(input: string, map: ActionMap = DEFAULT_ACTION_MAP): LoadedRuns {
  const loaded: LoadedRuns = { runs: [], skipped: [], formats: {} };
  for (const file of filesOf(input)) {
    try {
      readFile(file, map, loaded);
    } catch (error) {
      if (error instanceof FormatError)
        loaded.skipped.push({ file: error.where.file, ...(error.where.line ? { line: error.where.line } : {}), why: error.message });
      else loaded.skipped.push({ file, why: `${file}: ${(error as Error).message}` });
    }
  }
  return loaded;
}

function filesOf(input: string): string[] {
  const stat = statSync(input);
  if (!stat.isDirectory()) return [input];
  return readdirSync(input, { recursive: true, encoding: 'utf8' })
    .filter((name) => EXTENSIONS.test(name))
    .sort()
    .map((name) => join(input, name))
    .filter((path) => statSync(path).isFile());
}

function readFile(file: string, map: ActionMap, loaded: LoadedRuns): void {
  const bytes = readFileSync(file);
  const text = (file.endsWith('.gz') ? gunzipBounded(bytes, file) : bytes).toString('utf8');
  // JSONL is read line by line even when it holds one line, so its errors name the line.
  const whole = /\.jsonl(?:\.gz)?$/.test(file) ? undefined : parseWhole(text);
  if (whole !== undefined) {
    const run = wholeFileRun(whole, file, map);
    if (run) {
      loaded.runs.push(run.run);
      loaded.formats[run.format] = (loaded.formats[run.format] ?? 0) + 1;
      return;
    }
  }
  readLines(text, file, map, loaded);
}

function parseWhole(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function wholeFileRun(value: unknown, file: string, map: ActionMap): { run: RecordedRun; format: string } | null {
  const where = { file };
  if (isMiniSweAgent(value)) return { run: miniSweAgentRun(value, where, map), format: 'mini-swe-agent' };
  if (isSweAgent(value)) return { run: sweAgentRun(value, where, map), format: 'SWE-agent' };
  if (isAtif(value)) return { run: atifRun(value, where, map), format: 'ATIF' };
  if (isCompactRun(value)) return { run: compactRun(value, where), format: 'realtraj' };
  if (isChatRun(value)) return { run: chatRun((value as { messages: unknown[] }).messages, where, value as object, map), format: 'openai-chat' };
  if (Array.isArray(value) && value.every(isChatMessage)) return { run: chatRun(value, where, {}, map), format: 'openai-chat' };
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && !isTraceLine(value) && !isChatMessage(value)) {
    throw new FormatError(where, 'not a format rein replay reads (realtraj JSONL, rein trace, mini-swe-agent .traj.json, SWE-agent .traj, ATIF, OpenAI chat)');
  }
  return null;
}

function readLines(text: string, file: string, map: ActionMap, loaded: LoadedRuns): void {
  const parsed: Array<{ value: unknown; line: number }> = [];
  text.split('\n').forEach((raw, index) => {
    if (raw.trim() === '') return;
    try {
      parsed.push({ value: JSON.parse(raw), line: index + 1 });
    } catch (error) {
      loaded.skipped.push({ file, line: index + 1, why: `${file}:${index + 1}: not JSON (${(error as Error).message})` });
    }
  });
  const first = parsed[0]?.value;
  if (first === undefined) {
    if (loaded.skipped.every((skip) => skip.file !== file)) loaded.skipped.push({ file, why: `${file}: empty` });
    return;
  }
  const count = (format: string) => (loaded.formats[format] = (loaded.formats[format] ?? 0) + 1);
  if (isTraceLine(first)) {
    loaded.runs.push(reinTraceRun(parsed, file));
    count('rein-trace');
  } else if (isChatMessage(first)) {
    loaded.runs.push(
      chatRun(
        parsed.map((entry) => entry.value),
        { file },
        {},
        map,
      ),
    );
    count('openai-chat');
  } else {
    // One run a line (realtraj compact or chat runs): a bad line is skipped, the others are read.
    for (const { value, line } of parsed) {
      try {
        if (isCompactRun(value)) {
          loaded.runs.push(compactRun(value, { file, line }));
          count('realtraj');
        } else if (isChatRun(value)) {
          loaded.runs.push(chatRun((value as { messages: unknown[] }).messages, { file, line }, value as object, map));
          count('openai-chat');
        } else {
          throw new FormatError({ file, line }, 'not a run: expected a realtraj run ({instance, steps}) or a chat run ({messages})');
        }
      } catch (error) {
        if (!(error instanceof FormatError)) throw error;
        loaded.skipped.push({ file, line, why: error.message });
      }
    }
  }
}
