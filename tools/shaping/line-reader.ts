import fs from 'node:fs';
import { promisify } from 'node:util';

const readAt = promisify(fs.read);

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/** How many leading bytes are checked for a NUL when deciding a file is binary (git's rule). */
const BINARY_SNIFF_BYTES = 8 * 1024;

/** One line as the reader hands it out. */
interface LineInfo {
  /** 1-based line number. */
  number: number;
  /**
   * The line's first bytes (at most the cap), without the `\n`. Only valid
   * during the callback: it may be a view into a reused read buffer.
   */
  bytes: Buffer;
  /** Bytes of this line beyond the cap that were counted but not kept. */
  cutBytes: number;
  /** Where the line starts in the file (a byte offset), so a caller can read a cut line's rest itself. */
  start: number;
}

/** Return `false` to stop reading early. */
type LineVisitor = (line: LineInfo) => boolean | undefined;

/**
 * Calls `visit` for every line of a file while holding at most one read
 * buffer plus `maxLineBytes` of the current line, so a 100 MB file or a
 * single 100 MB line costs the same memory as a small one. Lines split on
 * `\n` bytes, which never occur inside a UTF-8 multi-byte sequence. A final
 * line without `\n` counts; an empty file has zero lines.
 *
 * `file` is a path or a descriptor the caller opened (and closes); a descriptor is read from its start by
 * position, so it can be read again.
 *
 * @example const lines = await forEachLine('/repo/big.log', 4096, ({ number, bytes }) => { ... });
 */
export async function forEachLine(file: string | number, maxLineBytes: number, visit: LineVisitor, signal?: AbortSignal): Promise<number> {
  const fd = typeof file === 'number' ? file : fs.openSync(file, 'r');
  const line = createLineAccumulator(maxLineBytes);
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let count = 0;
  let position = 0;
  let start = 0;
  try {
    for (;;) {
      signal?.throwIfAborted();
      const { bytesRead } = await readAt(fd, buffer, 0, CHUNK_BYTES, position);
      if (bytesRead === 0) break;
      const chunkStart = position;
      position += bytesRead;
      const chunk = buffer.subarray(0, bytesRead);
      let from = 0;
      for (let nl = chunk.indexOf(NEWLINE, from); nl !== -1; nl = chunk.indexOf(NEWLINE, from)) {
        line.append(chunk.subarray(from, nl));
        count += 1;
        if (visit({ number: count, ...line.take(), start }) === false) return count;
        from = nl + 1;
        start = chunkStart + from;
      }
      line.append(chunk.subarray(from));
      line.detach();
    }
    if (!line.isEmpty()) visit({ number: ++count, ...line.take(), start });
    return count;
  } finally {
    if (typeof file !== 'number') fs.closeSync(fd);
  }
}

/** True when the file's first 8 KB contain a NUL byte; `file` is a path or a descriptor (read by position). */
export async function looksBinary(file: string | number): Promise<boolean> {
  const fd = typeof file === 'number' ? file : fs.openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(BINARY_SNIFF_BYTES);
    const { bytesRead } = await readAt(fd, buffer, 0, BINARY_SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead).includes(0);
  } finally {
    if (typeof file !== 'number') fs.closeSync(fd);
  }
}

/**
 * The current line's kept bytes. Pieces are views into the read buffer until
 * `detach` copies them, which happens only when a line spans two reads.
 */
function createLineAccumulator(maxBytes: number) {
  let pieces: Buffer[] = [];
  let firstView = 0;
  let kept = 0;
  let cut = 0;
  let seen = false;
  return {
    append(bytes: Buffer): void {
      if (bytes.length === 0) return;
      seen = true;
      const room = maxBytes - kept;
      if (room < bytes.length) cut += bytes.length - Math.max(room, 0);
      if (room <= 0) return;
      const piece = bytes.subarray(0, room);
      pieces.push(piece);
      kept += piece.length;
    },
    detach(): void {
      for (let i = firstView; i < pieces.length; i += 1) pieces[i] = Buffer.from(pieces[i]!);
      firstView = pieces.length;
    },
    take(): { bytes: Buffer; cutBytes: number } {
      const bytes = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, kept);
      const result = { bytes, cutBytes: cut };
      pieces = [];
      firstView = 0;
      kept = 0;
      cut = 0;
      seen = false;
      return result;
    },
    isEmpty(): boolean {
      return !seen;
    },
  };
}
