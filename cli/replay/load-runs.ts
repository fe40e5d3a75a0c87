import { readFileSync } from 'node:fs';
import { gunzipBounded } from 'rein/lib';
import type { RecordedRun } from 'rein/testing';
import { type ActionMap, DEFAULT_ACTION_MAP } from './action-map.js';
import { atifRun, isAtif } from './formats/atif.js';
import { FormatError } from './formats/errors.js';
import { isMiniSweAgent, miniSweAgentRun } from './formats/mini-swe-agent.js';
import { chatRun, isChatMessage, isChatRun } from './formats/openai-chat.js';
import { isOpenHandsEvents, isOpenHandsOutput, openHandsRun } from './formats/openhands.js';
import { compactRun, isCompactRun } from './formats/realtraj.js';
import { isTraceLine, reinTraceRun } from './formats/rein-trace.js';
import { isSweAgent, sweAgentRun } from './formats/swe-agent.js';
import { inputFiles } from './input-files.js';

/** A file or line that could not be read: where, and why. The rest of the set is still replayed. */
export interface SkippedInput {
  file: string;
  line?: number;
  why: string;
}

export interface LoadedRuns {
  runs: RecordedRun[];
  skipped: SkippedInput[];
  /** Files in a directory that hold no run in a format the replay reads (predictions, results, configs): passed over quietly. */
  ignored: string[];
  /** The format each file was read as. */
  formats: Record<string, number>;
}

const NOT_A_RUN =
  'not a format rein replay reads (realtraj JSONL, rein trace, mini-swe-agent .traj.json, SWE-agent .traj, OpenHands events or output.jsonl, ATIF, OpenAI chat)';

/**
 * Reads recorded runs from a file or a directory (recursively: `.jsonl`,
 * `.json`, `.traj`, each optionally `.gz`; a rein run folder is one run, read
 * from its trace), telling each file's format by its shape: the realtraj
 * compact JSONL, rein's trace.jsonl, mini-swe-agent's `.traj.json`,
 * SWE-agent's `.traj`, OpenHands' event logs, ATIF, or OpenAI chat messages
 * (JSONL of runs or of one run's messages). A malformed file or line is
 * skipped with its file and line; it never stops the rest. In a directory, a
 * file that is well-formed but holds no run (predictions, a results file, a
 * config) is passed over quietly and counted in `ignored`.
 *
 * @example const { runs, skipped } = loadRuns('../shared/realtraj/dev.jsonl.gz');
 */
export function loadRuns(input: string, map: ActionMap = DEFAULT_ACTION_MAP): LoadedRuns {
  const loaded: LoadedRuns = { runs: [], skipped: [], ignored: [], formats: {} };
  const { files, walked } = inputFiles(input);
  for (const file of files) {
    try {
      readFile(file, { map, walked }, loaded);
    } catch (error) {
      if (error instanceof FormatError)
        loaded.skipped.push({ file: error.where.file, ...(error.where.line ? { line: error.where.line } : {}), why: error.message });
      else loaded.skipped.push({ file, why: `${file}: ${(error as Error).message}` });
    }
  }
  return loaded;
}

interface ReadOptions {
  map: ActionMap;
  /** Read as part of a directory: a file that holds no run is ignored, not skipped. */
  walked: boolean;
}

function readFile(file: string, options: ReadOptions, loaded: LoadedRuns): void {
  const bytes = readFileSync(file);
  const text = (file.endsWith('.gz') ? gunzipBounded(bytes, file) : bytes).toString('utf8');
  // JSONL is read line by line even when it holds one line, so its errors name the line.
  const whole = /\.jsonl(?:\.gz)?$/.test(file) ? undefined : parseWhole(text);
  if (whole !== undefined) {
    const run = wholeFileRun(whole, file, options.map);
    if (run) {
      loaded.runs.push(run.run);
      loaded.formats[run.format] = (loaded.formats[run.format] ?? 0) + 1;
      return;
    }
    // A single trace line or chat message is a one-line JSON Lines file, read below.
    if (!isTraceLine(whole) && !isChatMessage(whole)) {
      if (options.walked) loaded.ignored.push(file);
      else loaded.skipped.push({ file, why: `${file}: ${NOT_A_RUN}` });
      return;
    }
  }
  readLines(text, file, options, loaded);
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
  if (isOpenHandsOutput(value) || isOpenHandsEvents(value)) return { run: openHandsRun(value, where, map), format: 'OpenHands' };
  if (isCompactRun(value)) return { run: compactRun(value, where), format: 'realtraj' };
  if (isChatRun(value)) return { run: chatRun((value as { messages: unknown[] }).messages, where, value as object, map), format: 'openai-chat' };
  if (Array.isArray(value) && value.length > 0 && value.every(isChatMessage)) return { run: chatRun(value, where, {}, map), format: 'openai-chat' };
  return null;
}

function readLines(text: string, file: string, options: ReadOptions, loaded: LoadedRuns): void {
  const { map } = options;
  const parsed: Array<{ value: unknown; line: number }> = [];
  const broken: SkippedInput[] = [];
  text.split('\n').forEach((raw, index) => {
    if (raw.trim() === '') return;
    try {
      parsed.push({ value: JSON.parse(raw), line: index + 1 });
    } catch (error) {
      broken.push({ file, line: index + 1, why: `${file}:${index + 1}: not JSON (${(error as Error).message})` });
    }
  });
  const first = parsed[0]?.value;
  if (first === undefined) {
    loaded.skipped.push(...(broken.length > 0 ? broken : [{ file, why: `${file}: empty` }]));
    return;
  }
  const count = (format: string) => (loaded.formats[format] = (loaded.formats[format] ?? 0) + 1);
  if (isTraceLine(first)) {
    loaded.skipped.push(...broken);
    loaded.runs.push(reinTraceRun(parsed, file));
    count('rein-trace');
  } else if (isChatMessage(first)) {
    loaded.skipped.push(...broken);
    loaded.runs.push(
      chatRun(
        parsed.map((entry) => entry.value),
        { file },
        {},
        map,
      ),
    );
    count('openai-chat');
  } else if (options.walked && !parsed.some(({ value }) => isRunLine(value))) {
    // A JSON Lines file of something else (predictions, a log): nothing to replay in it.
    loaded.ignored.push(file);
  } else {
    loaded.skipped.push(...broken);
    // One run a line (realtraj compact, OpenHands output.jsonl, chat runs): a bad line is skipped, the others are read.
    for (const { value, line } of parsed) {
      try {
        const run = lineRun(value, { file, line }, map);
        loaded.runs.push(run.run);
        count(run.format);
      } catch (error) {
        if (!(error instanceof FormatError)) throw error;
        loaded.skipped.push({ file, line, why: error.message });
      }
    }
  }
}

const isRunLine = (value: unknown) => isCompactRun(value) || isOpenHandsOutput(value) || isChatRun(value);

function lineRun(value: unknown, where: { file: string; line: number }, map: ActionMap): { run: RecordedRun; format: string } {
  if (isCompactRun(value)) return { run: compactRun(value, where), format: 'realtraj' };
  if (isOpenHandsOutput(value)) return { run: openHandsRun(value, where, map), format: 'OpenHands' };
  if (isChatRun(value)) return { run: chatRun((value as { messages: unknown[] }).messages, where, value as object, map), format: 'openai-chat' };
  throw new FormatError(
    where,
    'not a run: expected a realtraj run ({instance, steps}), an OpenHands output line ({instance_id, history}) or a chat run ({messages})',
  );
}
