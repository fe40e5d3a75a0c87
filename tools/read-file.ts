import { z } from 'zod';
import { maskLinesAfter } from '../lib/secrets/secret-scan.js';
import { type Hiding, resolveInWorkspace, resolveWritableInWorkspace } from './permissions/path-guard.js';
import { type OpenedFile, openVerified } from './permissions/verified-open.js';
import { forEachLine, looksBinary } from './shaping/line-reader.js';
import type { Tool } from './types.js';

/** Longest line shown in full; longer ones are cut with a marker. */
const MAX_LINE_CHARS = 2_000;
/** A UTF-8 code point is at most 4 bytes, so this many bytes always cover MAX_LINE_CHARS. */
const MAX_LINE_BYTES = MAX_LINE_CHARS * 4;
/** Lines above a window read with it for secret masking only: a private key whose header is above the window is still masked. */
const MASK_CONTEXT_LINES = 200;

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
    const file = openExistingFile(ctx.root, path, { hiding: ctx.policy });
    try {
      const content = await readWindow(file, path, start, ctx.limits.viewLines);
      return { content, ok: true, effect: { kind: 'read', path } };
    } finally {
      file.close();
    }
  },
};

/**
 * Resolves a workspace path with the path guard, opens it, and checks that what was opened is a regular file still
 * inside the workspace (`openVerified`), else `PathEscapeError`, `HiddenPathError` or `MissingFileError`. The
 * caller reads through the returned descriptor and closes it.
 */
export function openExistingFile(
  root: string,
  relOrAbs: string,
  options: { forWriting?: boolean; protectedFiles?: readonly string[]; hiding?: Hiding } = {},
): OpenedFile {
  const file = options.forWriting
    ? resolveWritableInWorkspace(root, relOrAbs, options.protectedFiles, options.hiding)
    : resolveInWorkspace(root, relOrAbs, options.hiding);
  return openVerified(root, file, relOrAbs, options.hiding);
}

/**
 * Renders `viewLines` numbered lines from `start`, streaming the file so only
 * the window is held in memory. The header is the seed's:
 * `[path: lines a-b of n; x above, y below]`.
 *
 * The lines above the window are read with it for masking: a secret that starts above it (a private key's header)
 * is masked where it goes on inside.
 *
 * @example await readWindow(openExistingFile('/repo', 'a.py'), 'a.py', 1, 100) // '[a.py: lines 1-3 of 3; 0 above, 0 below]\n    1  ...'
 */
export async function readWindow(file: Pick<OpenedFile, 'fd' | 'stat'>, shownPath: string, start: number, viewLines: number): Promise<string> {
  if (await looksBinary(file.fd)) {
    return `[${shownPath}: binary file, ${file.stat.size} bytes; not shown]`;
  }
  const first = Math.max(1, start);
  const last = first + viewLines - 1;
  const decoder = new TextDecoder('utf-8', { fatal: false });
  const context: string[] = [];
  const lines: Array<{ number: number; text: string; totalBytes: number }> = [];
  const total = await forEachLine(file.fd, MAX_LINE_BYTES, ({ number, bytes, cutBytes }) => {
    if (number >= first && number <= last) lines.push({ number, text: decoder.decode(bytes), totalBytes: bytes.length + cutBytes });
    else if (number < first && number >= first - MASK_CONTEXT_LINES) context.push(decoder.decode(bytes));
  });
  if (total === 0) return `[${shownPath}: empty file, 0 lines]`;
  if (first > total) return `[${shownPath}: start ${first} is past the end; the file has ${total} lines]`;
  const end = Math.min(total, last);
  const before = context.length > 0 ? `${context.join('\n')}\n` : '';
  const masked = maskLinesAfter(before, lines.map((line) => line.text).join('\n')).split('\n');
  const body = lines.map((line, index) => `${line.number.toString().padStart(5)}  ${formatLine(masked[index] ?? '', line.totalBytes)}`);
  return `[${shownPath}: lines ${first}-${end} of ${total}; ${first - 1} above, ${total - end} below]\n${body.join('\n')}`;
}

function formatLine(text: string, totalBytes: number): string {
  // CRLF files show without the `\r`; the bytes on disk are untouched.
  const line = text.endsWith('\r') ? text.slice(0, -1) : text;
  if (line.length <= MAX_LINE_CHARS && totalBytes <= MAX_LINE_BYTES) return line;
  return `${line.slice(0, MAX_LINE_CHARS)}...[line cut at ${MAX_LINE_CHARS} chars; ${totalBytes} bytes in full]`;
}
