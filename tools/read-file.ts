import fs from 'node:fs';
import { z } from 'zod';
import { MissingFileError } from '../lib/errors.js';
import { forEachLine, looksBinary } from './line-reader.js';
import { type Hiding, resolveInWorkspace, resolveWritableInWorkspace } from './path-guard.js';
import type { Tool } from './types.js';

/** Longest line shown in full; longer ones are cut with a marker. */
export const MAX_LINE_CHARS = 2_000;
/** A UTF-8 code point is at most 4 bytes, so this many bytes always cover MAX_LINE_CHARS. */
const MAX_LINE_BYTES = MAX_LINE_CHARS * 4;

const parameters = z
  .object({
    path: z.string().describe('File path, relative to the repository root.'),
    start: z.number().int().default(1).describe('First line to show (1-based). Defaults to 1.'),
  })
  .strict();

/**
 * `read_file`: a numbered window of `ctx.limits.viewLines` lines with a header
 * saying where it is in the file (seed components 1 and 2).
 *
 * @example await readFileTool.execute({ path: 'src/app.py', start: 120 }, ctx)
 */
export const readFileTool: Tool<typeof parameters> = {
  name: 'read_file',
  description: 'Show 100 numbered lines of a file starting at `start`.',
  parameters,
  async execute({ path, start }, ctx) {
    const file = resolveExistingFile(ctx.root, path, { hiding: ctx.policy });
    const content = await readWindow(file, path, start, ctx.limits.viewLines);
    return { content, ok: true, effect: { kind: 'read', path } };
  },
};

/** Resolves a workspace path and checks it names a regular file, else `MissingFileError`. */
export function resolveExistingFile(
  root: string,
  relOrAbs: string,
  options: { forWriting?: boolean; protectedFiles?: readonly string[]; hiding?: Hiding } = {},
): string {
  const file = options.forWriting
    ? resolveWritableInWorkspace(root, relOrAbs, options.protectedFiles, options.hiding)
    : resolveInWorkspace(root, relOrAbs, options.hiding);
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (stat === undefined) throw new MissingFileError(`${relOrAbs} does not exist`);
  if (stat.isDirectory()) throw new MissingFileError(`${relOrAbs} is a directory, not a file`);
  if (!stat.isFile()) throw new MissingFileError(`${relOrAbs} is not a regular file`);
  return file;
}

/**
 * Renders `viewLines` numbered lines from `start`, streaming the file so only
 * the window is held in memory. The header is the seed's:
 * `[path: lines a-b of n; x above, y below]`.
 *
 * @example await readWindow('/repo/a.py', 'a.py', 1, 100) // '[a.py: lines 1-3 of 3; 0 above, 0 below]\n    1  ...'
 */
export async function readWindow(file: string, shownPath: string, start: number, viewLines: number): Promise<string> {
  if (await looksBinary(file)) {
    return `[${shownPath}: binary file, ${fs.statSync(file).size} bytes; not shown]`;
  }
  const first = Math.max(1, start);
  const last = first + viewLines - 1;
  const decoder = new TextDecoder('utf-8', { fatal: false });
  const body: string[] = [];
  const total = await forEachLine(file, MAX_LINE_BYTES, ({ number, bytes, cutBytes }) => {
    if (number >= first && number <= last) {
      body.push(`${number.toString().padStart(5)}  ${formatLine(decoder.decode(bytes), bytes.length + cutBytes)}`);
    }
  });
  if (total === 0) return `[${shownPath}: empty file, 0 lines]`;
  if (first > total) return `[${shownPath}: start ${first} is past the end; the file has ${total} lines]`;
  const end = Math.min(total, last);
  return `[${shownPath}: lines ${first}-${end} of ${total}; ${first - 1} above, ${total - end} below]\n${body.join('\n')}`;
}

function formatLine(text: string, totalBytes: number): string {
  // CRLF files show without the `\r`; the bytes on disk are untouched.
  const line = text.endsWith('\r') ? text.slice(0, -1) : text;
  if (line.length <= MAX_LINE_CHARS && totalBytes <= MAX_LINE_BYTES) return line;
  return `${line.slice(0, MAX_LINE_CHARS)}...[line cut at ${MAX_LINE_CHARS} chars; ${totalBytes} bytes in full]`;
}
