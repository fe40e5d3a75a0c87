import { createHash } from 'node:crypto';

/** sha256 of some bytes, hex. */
export function sha256(bytes: string | Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
