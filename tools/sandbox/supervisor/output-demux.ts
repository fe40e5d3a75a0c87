import type { OutputCollector } from '../../../lib/output-collector.js';

const EMPTY = Buffer.alloc(0);

/**
 * Splits the supervisor's stdout, which every foreground command shares, at
 * the end marker the supervisor writes once the command and everything it
 * started are gone. Bytes before the marker go to the command's collector; a
 * marker split across chunks is held back until it is whole.
 *
 * @example const demux = createOutputDemux(marker, output); child.stdout.on('data', (chunk) => demux.push(chunk));
 */
export function createOutputDemux(marker: Buffer, output: OutputCollector) {
  let pending = EMPTY;
  let ended = false;
  let stray = 0;
  return {
    /** Returns true once the marker has been seen; bytes after it are counted as stray, not kept. */
    push(chunk: Buffer): boolean {
      if (ended) {
        stray += chunk.length;
        return true;
      }
      const data = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
      const at = data.indexOf(marker);
      if (at >= 0) {
        if (at > 0) output.push(data.subarray(0, at));
        stray += data.length - at - marker.length;
        pending = EMPTY;
        ended = true;
        return true;
      }
      const keep = markerPrefixAtEnd(data, marker);
      if (data.length > keep) output.push(data.subarray(0, data.length - keep));
      pending = keep > 0 ? Buffer.from(data.subarray(data.length - keep)) : EMPTY;
      return false;
    },
    get ended() {
      return ended;
    },
    /** Bytes that arrived after the marker (a process that escaped the command's cleanup). */
    get stray() {
      return stray;
    },
  };
}

/** Length of the longest end of `data` that is a beginning of `marker`. */
function markerPrefixAtEnd(data: Buffer, marker: Buffer): number {
  for (let length = Math.min(marker.length - 1, data.length); length > 0; length--) {
    if (data[data.length - length] !== marker[0]) continue;
    if (data.subarray(data.length - length).equals(marker.subarray(0, length))) return length;
  }
  return 0;
}
