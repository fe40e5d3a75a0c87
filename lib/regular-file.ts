import fs from 'node:fs';
import { UsageError } from './errors.js';

const { O_RDONLY, O_NONBLOCK, O_NOCTTY } = fs.constants;

/**
 * Reads a file the harness finds in a workspace (a rules file, `.mcp.json`) only if it is a regular file: a FIFO an
 * agent left there would block the harness's event loop in a plain `readFileSync`, and a device would be read
 * without end. Opened non-blocking, checked with `fstat`, then read through that descriptor. Throws a `UsageError`
 * naming what it found; `ENOENT` passes through for callers that treat a missing file as absent.
 *
 * @example readRegularFile(join(ws, 'rein.config.json'), 'utf8')
 */
export function readRegularFile(path: string): Buffer;
export function readRegularFile(path: string, encoding: 'utf8'): string;
export function readRegularFile(path: string, encoding?: 'utf8'): Buffer | string {
  const fd = fs.openSync(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new UsageError(`${path} is ${kindOf(stat)}, not a regular file; rein does not read it`);
    const bytes = fs.readFileSync(fd);
    return encoding ? bytes.toString(encoding) : bytes;
  } finally {
    fs.closeSync(fd);
  }
}

function kindOf(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'not a file';
}
