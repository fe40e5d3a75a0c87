import fs from 'node:fs';
import { z } from 'zod';
import { MissingFileError } from '../lib/errors.js';
import { compileLinear, enableLinearRegExp } from '../lib/linear-regex.js';
import { hiddenReason, resolveInWorkspace, toWorkspaceRelative } from './permissions/path-guard.js';
import { type OpenedFile, openVerified } from './permissions/verified-open.js';
import { forEachLine, looksBinary } from './shaping/line-reader.js';
import { headTail } from './shaping/shape.js';
import type { Tool, ToolContext } from './types.js';
import { walkFiles } from './walk-files.js';

/** Matching lines counted before giving up on an exact total. */
const COUNT_LIMIT = 10_000;
/** Longest hit text shown; longer lines show a window around the match. */
const MAX_HIT_CHARS = 240;
/** Only this much of one line is held at once, so a minified 100 MB line stays cheap; the rest is searched in windows. */
const MAX_SEARCHED_LINE_BYTES = 1024 * 1024;
/** How much two windows of a long line share: a match up to this long across their border is found. */
const WINDOW_OVERLAP_BYTES = 64 * 1024;

const parameters = z
  .object({
    pattern: z.string().describe('Regular expression in JavaScript syntax, matched against each line.'),
    path: z.string().default('.').describe('File or directory to search, relative to the repository root. Defaults to the root.'),
  })
  .strict();

/**
 * `grep`: regex search over the text files below `path`, as
 * `relpath:line: text`, with at most `ctx.limits.maxHits` hits (seed components 1 and 2).
 * Skips `.git`, `node_modules`, `.gitignore`d paths and binary files.
 *
 * @example await grepTool.execute({ pattern: 'def \\w+_total', path: 'src' }, ctx)
 */
export const grepTool: Tool<typeof parameters> = {
  name: 'grep',
  description: `Regex search (JavaScript syntax) across text files below \`path\`, skipping .gitignore'd and binary files. Returns at most 50 hits.`,
  parameters,
  async execute({ pattern, path }, ctx) {
    const effect = { kind: 'search', pattern } as const;
    const regex = compilePattern(pattern);
    if (typeof regex === 'string') return { content: regex, ok: false, effect };
    const start = resolveInWorkspace(ctx.root, path, ctx.policy);
    if (!fs.existsSync(start)) throw new MissingFileError(`${path} does not exist`);
    const { hits, count } = await search(regex, start, ctx);
    return { content: formatHits(hits, count, ctx.limits.maxHits), ok: true, effect };
  },
};

/**
 * The pattern for V8's usual engine (fast on plain text), with the linear-time engine switched on to take over when
 * backtracking runs away, so no pattern (`^(a+)+$` on `aaaa…!`) can hold the harness for minutes. Only patterns the
 * linear engine can run are accepted: back-references and lookarounds need backtracking and are refused with a way
 * round.
 */
function compilePattern(pattern: string): RegExp | string {
  enableLinearRegExp();
  let regex: RegExp;
  try {
    regex = new RegExp(pattern);
  } catch (error) {
    const message = headTail((error as Error).message, 500);
    return `Invalid pattern: ${message}. Patterns use JavaScript RegExp syntax (no inline flags like (?i), named groups are (?<name>...)).`;
  }
  if (compileLinear(pattern) instanceof RegExp) return regex;
  return 'Pattern not supported by grep: back-references and lookarounds ((?=…), (?<=…), \\1) can take exponential time. Search without them, or run `grep -P` / `rg --pcre2` with the run tool.';
}

async function search(regex: RegExp, start: string, ctx: ToolContext): Promise<{ hits: string[]; count: number }> {
  const hits: string[] = [];
  let count = 0;
  const longLines: Array<{ number: number; start: number; bytes: number }> = [];
  const decoder = new TextDecoder('utf-8', { fatal: false });
  for (const file of walkFiles(ctx.root, start)) {
    ctx.signal.throwIfAborted();
    if (count > COUNT_LIMIT) break;
    // What the sandbox hides from commands (.env files, permissions.hidden) does not exist for grep either.
    if (hiddenReason(ctx.root, file, ctx.policy, false) !== null) continue;
    // Opened and checked as read_file does: a file swapped for a link (or below a swapped directory) is skipped.
    const opened = openOrNull(ctx.root, file, ctx);
    if (opened === null) continue;
    try {
      if (await isUnreadableOrBinary(opened.fd)) continue;
      const rel = toWorkspaceRelative(ctx.root, file);
      longLines.length = 0;
      await forEachLine(
        opened.fd,
        MAX_SEARCHED_LINE_BYTES,
        ({ number, bytes, cutBytes, start: lineStart }) => {
          // A line longer than what is held is searched whole after this pass, window by window.
          if (cutBytes > 0) {
            longLines.push({ number, start: lineStart, bytes: bytes.length + cutBytes });
            return true;
          }
          const text = decoder.decode(bytes);
          const line = text.endsWith('\r') ? text.slice(0, -1) : text;
          const match = regex.exec(line);
          if (match === null) return true;
          count += 1;
          if (hits.length < ctx.limits.maxHits) hits.push(`${rel}:${number}: ${showHit(line, match.index)}`);
          return count <= COUNT_LIMIT;
        },
        ctx.signal,
      );
      for (const long of longLines) {
        if (count > COUNT_LIMIT) break;
        const hit = await searchLongLine(opened.fd, long, regex, ctx.signal);
        if (hit === null) continue;
        count += 1;
        if (hits.length < ctx.limits.maxHits) hits.push(`${rel}:${long.number}: ${hit}`);
      }
    } finally {
      opened.close();
    }
  }
  return { hits, count };
}

/**
 * The first match in a line too long to hold, as a hit, or null: the line is read in windows of
 * MAX_SEARCHED_LINE_BYTES that overlap by WINDOW_OVERLAP_BYTES. A window's edges are not the line's: a match at the
 * start of a later window (found already in the one before, or `^` matching there) and one ending at the end of an
 * earlier window (found in the next, or `$`) are not taken from it.
 */
async function searchLongLine(fd: number, line: { start: number; bytes: number }, regex: RegExp, signal: AbortSignal): Promise<string | null> {
  const all = new RegExp(regex.source, `${regex.flags.replace('g', '')}g`);
  const buffer = Buffer.alloc(MAX_SEARCHED_LINE_BYTES);
  const end = line.start + line.bytes;
  for (let at = line.start; at < end; at += MAX_SEARCHED_LINE_BYTES - WINDOW_OVERLAP_BYTES) {
    signal.throwIfAborted();
    const length = Math.min(MAX_SEARCHED_LINE_BYTES, end - at);
    const read = await new Promise<number>((resolve, reject) => fs.read(fd, buffer, 0, length, at, (error, bytes) => (error ? reject(error) : resolve(bytes))));
    let text = buffer.subarray(0, read).toString('utf8');
    const last = at + length >= end;
    if (last && text.endsWith('\r')) text = text.slice(0, -1);
    all.lastIndex = 0;
    for (let match = all.exec(text); match !== null; match = all.exec(text)) {
      if (match[0] === '') all.lastIndex += 1;
      if (at > line.start && match.index === 0) continue;
      if (!last && match.index + match[0].length === text.length) continue;
      return showHit(text, match.index);
    }
    if (last) break;
  }
  return null;
}

function openOrNull(root: string, file: string, ctx: ToolContext): OpenedFile | null {
  try {
    return openVerified(root, file, toWorkspaceRelative(root, file), ctx.policy);
  } catch {
    return null;
  }
}

async function isUnreadableOrBinary(fd: number): Promise<boolean> {
  try {
    return await looksBinary(fd);
  } catch {
    return true;
  }
}

function formatHits(hits: string[], count: number, maxHits: number): string {
  if (count === 0) return 'No matches.';
  if (count > COUNT_LIMIT) return `More than ${COUNT_LIMIT} matches. Too many to show; use a more specific pattern.`;
  if (count > maxHits) return `${count} matches. Too many to show; use a more specific pattern.`;
  return hits.join('\n');
}

/** The trimmed line, or a window around the match when the line is long (minified code). */
function showHit(line: string, matchIndex: number): string {
  const trimmed = line.trim();
  if (trimmed.length <= MAX_HIT_CHARS) return trimmed;
  const from = Math.max(0, matchIndex - Math.floor(MAX_HIT_CHARS / 3));
  const to = Math.min(line.length, from + MAX_HIT_CHARS);
  return `${from > 0 ? '...' : ''}${line.slice(from, to).trim()}${to < line.length ? '...' : ''}`;
}
