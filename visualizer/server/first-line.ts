import { closeSync, openSync, readSync } from 'node:fs';

/** The first line of a file, read in chunks so a big trace is not read whole for it. */
export function readFirstLine(path: string, maxBytes = 4 * 1024 * 1024): string {
  const fd = openSync(path, 'r');
  try {
    const chunks: Buffer[] = [];
    const chunk = Buffer.alloc(64 * 1024);
    let total = 0;
    while (total < maxBytes) {
      const read = readSync(fd, chunk, 0, chunk.length, total);
      if (read === 0) break;
      const newline = chunk.subarray(0, read).indexOf(10);
      if (newline >= 0) {
        chunks.push(Buffer.from(chunk.subarray(0, newline)));
        break;
      }
      chunks.push(Buffer.from(chunk.subarray(0, read)));
      total += read;
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
