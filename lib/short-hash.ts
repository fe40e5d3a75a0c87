/**
 * A short, stable hash (FNV-1a, 32 bit, base 36) for remembering actions and
 * results in the stall detector without keeping megabyte-long arguments.
 *
 * @example shortHash('run{"command":"pytest"}') // e.g. '1x3k9pq'
 */
export function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36) + ':' + text.length.toString(36);
}
